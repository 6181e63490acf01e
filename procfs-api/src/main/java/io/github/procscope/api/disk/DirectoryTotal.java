package io.github.procscope.api.disk;

import java.nio.file.Path;
import java.util.Objects;

/**
 * The size of one directory and everything below it on the same file system: one line of {@code du}.
 *
 * @param path           the directory
 * @param apparentBytes  the sum of the sizes ({@code st_size}) of the directory itself and every file,
 *                       directory and symbolic link below it, hard-linked files once: {@code du -b}
 * @param allocatedBytes the sum of their allocated blocks ({@code st_blocks} &times; 512): {@code du -B1},
 *                       the space they take on disk (less than apparent for sparse files, more for small
 *                       files that fill a whole block)
 */
public record DirectoryTotal(Path path, long apparentBytes, long allocatedBytes) {
    /**
     * Checks the components.
     * @throws IllegalArgumentException if a size is negative
     */
    public DirectoryTotal {
        Objects.requireNonNull(path, "path");
        if (apparentBytes < 0 || allocatedBytes < 0) {
            throw new IllegalArgumentException("sizes must not be negative");
        }
    }
}
