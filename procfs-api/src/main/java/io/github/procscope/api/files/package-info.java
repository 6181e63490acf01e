/**
 * Open files, as {@code lsof} shows them: the file descriptors of a process ({@code /proc/PID/fd} and
 * {@code /proc/PID/fdinfo}) and a system-wide scan for files that were deleted but are still held open
 * (what {@code lsof +L1} lists), which is why a disk can stay full after its files are deleted.
 *
 * <p>Entry point: {@link io.github.procscope.api.Procscope#openFiles()}.
 */
package io.github.procscope.api.files;
