/**
 * The Linux implementation of the procscope API: readers of {@code /proc} and {@code /sys}, one
 * parser per kernel file, each rooted at a directory given to its constructor so that tests can read
 * fixture trees.
 *
 * <p>Entry point: {@link io.github.procscope.linux.LinuxProcfs}. Parsers are package-private pure
 * functions from a file's bytes to an API record; they throw nothing but
 * {@link io.github.procscope.api.ProcfsParseException} on malformed input.
 */
package io.github.procscope.linux;
