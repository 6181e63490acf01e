/**
 * The lab "See a Process With Your Own Eyes", run for real: eight steps that make zombies, orphans,
 * reserved-but-untouched memory, deleted-but-open files and TERM-surviving processes happen, observe
 * them with the library, and write the evidence as {@code 01-tree.txt} ... {@code 08-notes.md} plus
 * {@code lab.json}. Helpers are POSIX sh or JVMs; everything started is ended by pid.
 */
package io.github.procscope.cli.lab;
