package io.github.procscope.api.files;

/** What a file descriptor refers to: the file type of its target ({@code st_mode}), as {@code lsof}'s TYPE column. */
public enum FdKind {
    /** A regular file ({@code REG}). */
    REGULAR_FILE,
    /** A directory ({@code DIR}). */
    DIRECTORY,
    /** A character device such as {@code /dev/null}, a terminal or {@code /dev/nvidia0} ({@code CHR}). */
    CHARACTER_DEVICE,
    /** A block device such as {@code /dev/sda} ({@code BLK}). */
    BLOCK_DEVICE,
    /** A pipe or FIFO ({@code FIFO}); the target reads {@code pipe:[inode]} for an unnamed pipe. */
    PIPE,
    /** A socket; the target reads {@code socket:[inode]}. */
    SOCKET,
    /** A symbolic link itself, opened with {@code O_PATH | O_NOFOLLOW} ({@code LINK}). */
    SYMLINK,
    /**
     * An anonymous inode: an eventfd, epoll, inotify, signalfd, timerfd, io_uring, perf or bpf object
     * ({@code a_inode}); the target reads {@code anon_inode:[eventfd]} or {@code anon_inode:inotify}.
     */
    ANON_INODE,
    /** A target whose type could not be determined. */
    UNKNOWN
}
