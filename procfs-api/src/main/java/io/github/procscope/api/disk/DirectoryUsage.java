package io.github.procscope.api.disk;

import java.nio.file.Path;
import java.util.List;
import java.util.Objects;

/**
 * Disk usage under a directory, as {@code du -x} computes it: every file counted once (hard links by
 * device and inode), symbolic links not followed, other file systems mounted below not entered. With the
 * largest directories, so that a full disk leads to what filled it.
 *
 * @param total            the directory's own total: {@code du -sb} ({@code apparentBytes}) and {@code du -sB1}
 *                         ({@code allocatedBytes})
 * @param files            how many non-directory entries were counted (each hard-linked file once)
 * @param directories      how many directories were counted, the root included
 * @param largest          the largest directories below the root (not the root itself), by allocated bytes,
 *                         largest first; at most as many as were asked for. A directory and its own
 *                         subdirectory may both appear, as in {@code du | sort -n}
 * @param unreadable       directories whose entries could not be listed (permission, or removed during the
 *                         walk) and entries that could not be examined (removed meanwhile, or named with bytes the
 *                         JVM's file-name encoding cannot represent, such as non-ASCII names when the JVM runs
 *                         under {@code LANG=C}): their sizes are missing from the totals, as with {@code du}'s
 *                         error messages
 * @param otherFileSystems mount points below the root that were not entered because they hold another file
 *                         system
 */
public record DirectoryUsage(DirectoryTotal total, long files, long directories, List<DirectoryTotal> largest,
                             List<Path> unreadable, List<Path> otherFileSystems) {
    /** Copies the lists. */
    public DirectoryUsage {
        Objects.requireNonNull(total, "total");
        if (files < 0 || directories < 0) {
            throw new IllegalArgumentException("counts must not be negative");
        }
        largest = List.copyOf(largest);
        unreadable = List.copyOf(unreadable);
        otherFileSystems = List.copyOf(otherFileSystems);
    }

    /** {@return the directory that was measured} */
    public Path root() {
        return total.path();
    }

    /** {@return whether every entry below the root could be examined} */
    public boolean complete() {
        return unreadable.isEmpty();
    }
}
