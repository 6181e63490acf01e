/**
 * Small runnable examples of the procscope library, written against {@code procfs-api} only, with
 * {@code procfs-impl-linux} on the run-time class path. The command-line tool is the {@code procscope-cli}
 * module.
 */
package io.github.procscope.examples;
