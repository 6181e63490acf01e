package io.github.procscope.api.files;

/**
 * A status flag of an open file, as {@code open(2)} names it. {@code O_CREAT}, {@code O_EXCL},
 * {@code O_NOCTTY} and {@code O_TRUNC} act only while opening and the kernel does not keep them, so
 * they never appear here.
 */
public enum OpenFlag {
    /** {@code O_APPEND}: every write goes to the end of the file. */
    O_APPEND,
    /** {@code O_NONBLOCK}: operations fail with {@code EAGAIN} rather than wait. */
    O_NONBLOCK,
    /** {@code O_DSYNC}: writes return once the data (not all metadata) is on stable storage. */
    O_DSYNC,
    /** {@code O_ASYNC} ({@code FASYNC}): signal-driven I/O. */
    O_ASYNC,
    /** {@code O_DIRECT}: I/O bypasses the page cache. */
    O_DIRECT,
    /** {@code O_LARGEFILE}: offsets may exceed 2 GiB (always set by 64-bit kernels). */
    O_LARGEFILE,
    /** {@code O_DIRECTORY}: the open was required to name a directory. */
    O_DIRECTORY,
    /** {@code O_NOFOLLOW}: the open did not follow a final symbolic link. */
    O_NOFOLLOW,
    /** {@code O_NOATIME}: reads do not update the access time. */
    O_NOATIME,
    /** {@code O_CLOEXEC}: the descriptor is closed on {@code execve}; it does not leak into children's programs. */
    O_CLOEXEC,
    /** {@code O_SYNC}: writes return once data and metadata are on stable storage (implies {@link #O_DSYNC}). */
    O_SYNC,
    /** {@code O_PATH}: a location only; the file can be named through the descriptor but not read or written. */
    O_PATH,
    /** {@code O_TMPFILE}: an unnamed temporary file (implies {@link #O_DIRECTORY}). */
    O_TMPFILE
}
