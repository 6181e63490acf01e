package io.github.procscope.api.files;

/** The access mode a file was opened with: the {@code O_ACCMODE} bits of its open flags. */
public enum AccessMode {
    /** {@code O_RDONLY}. */
    READ_ONLY,
    /** {@code O_WRONLY}. */
    WRITE_ONLY,
    /** {@code O_RDWR}. */
    READ_WRITE,
    /** The value 3: neither read nor write, accepted by some device drivers for {@code ioctl}-only access. */
    IOCTL_ONLY
}
