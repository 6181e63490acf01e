/**
 * The {@code procscope} command-line tool: every view of the library as a readable table, or as JSON
 * with {@code --json}. Started by the {@code ./procscope} launcher at the repository root.
 *
 * <p>Exit status: 0 on success; 1 when the target does not exist or may not be read; 2 on bad usage
 * (an unknown option or subcommand, a malformed value, a {@code --procfs-root} that is no procfs).
 */
package io.github.procscope.examples.cli;
