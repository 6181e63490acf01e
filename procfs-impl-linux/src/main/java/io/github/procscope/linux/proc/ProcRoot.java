package io.github.procscope.linux.proc;

import io.github.procscope.api.core.ProcfsUnavailableException;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Objects;

/** The one check of a root a reader is built on: every reader of this floor validates its roots here. */
final class ProcRoot {
    private ProcRoot() {
    }

    /**
     * @param root a procfs or sysfs mount, or a fixture tree with the same layout
     * @param name what the root is, for the message when it is null
     * @return the root
     * @throws NullPointerException       if it is null
     * @throws ProcfsUnavailableException if it does not exist or is not a directory
     */
    static Path requireDirectory(Path root, String name) {
        Objects.requireNonNull(root, name);
        if (!Files.isDirectory(root)) {
            throw new ProcfsUnavailableException(root, Files.exists(root) ? "it is not a directory"
                    : "it does not exist");
        }
        return root;
    }
}
