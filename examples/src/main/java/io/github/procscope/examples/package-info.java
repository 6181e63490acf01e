/**
 * Small runnable examples of the procscope API. The command-line tool lives in
 * {@link io.github.procscope.examples.cli}.
 */
package io.github.procscope.examples;
