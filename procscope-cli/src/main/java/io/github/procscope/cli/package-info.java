/**
 * The {@code procscope} command-line tool: every view of the library as a readable table, or as JSON
 * with {@code --json}. Started by the {@code ./procscope} launcher at the repository root.
 *
 * <p>Global options ({@code --procfs-root}, {@code --sysfs-root}, {@code --json}) reach every reader: a fixture
 * tree given as the procfs root is what every subcommand reads (signals, which act on this system's processes,
 * refuse one).
 *
 * <p>JSON conventions: stable field names; bytes as integers in fields named {@code ...Bytes}; instants as
 * ISO-8601 strings; durations in seconds in fields named {@code ...Seconds}; a fact that is absent (not reported,
 * not readable) as {@code null}, never as 0, -1 or an empty string. Streams ({@code watch}, {@code gpu --watch})
 * print one JSON object per line.
 *
 * <p>Exit status: 0 on success; 1 when the target does not exist or may not be read; 2 on bad usage
 * (an unknown option or subcommand, a malformed value, a {@code --procfs-root} that is no procfs); 3 when
 * {@code gpu} finds no usable GPU. Errors are one line on standard error, never a stack trace.
 */
package io.github.procscope.cli;
