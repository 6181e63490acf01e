package io.github.procscope.testing;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;

/**
 * A memory cgroup with a limit, made for one test and removed by {@link #close()}: v2 where the
 * unified hierarchy has the memory controller, else v1's memory hierarchy. Needs root.
 */
public final class MemoryCgroup implements AutoCloseable {
    private final Path dir;
    private final String relative;
    private final int version;

    private MemoryCgroup(Path dir, String relative, int version) {
        this.dir = dir;
        this.relative = relative;
        this.version = version;
    }

    /**
     * @param name       a name for the cgroup (made unique)
     * @param limitBytes its memory limit
     * @return the cgroup, or empty when this machine offers no writable memory controller
     */
    public static Optional<MemoryCgroup> create(String name, long limitBytes) {
        String unique = name + "-" + ProcessHandle.current().pid() + "-" + System.nanoTime();
        Path v2root = Path.of("/sys/fs/cgroup");
        try {
            if (Files.isRegularFile(v2root.resolve("cgroup.controllers"))
                    && Files.readString(v2root.resolve("cgroup.controllers")).contains("memory")) {
                Path d = Files.createDirectory(v2root.resolve(unique));
                Files.writeString(d.resolve("memory.max"), Long.toString(limitBytes));
                if (Files.exists(d.resolve("memory.swap.max"))) {
                    Files.writeString(d.resolve("memory.swap.max"), "0");
                }
                return Optional.of(new MemoryCgroup(d, "/" + unique, 2));
            }
            Path v1root = v2root.resolve("memory");
            if (Files.isRegularFile(v1root.resolve("memory.limit_in_bytes"))) {
                Path d = Files.createDirectory(v1root.resolve(unique));
                Files.writeString(d.resolve("memory.limit_in_bytes"), Long.toString(limitBytes));
                if (Files.exists(d.resolve("memory.swappiness"))) {
                    Files.writeString(d.resolve("memory.swappiness"), "0");
                }
                return Optional.of(new MemoryCgroup(d, "/" + unique, 1));
            }
            return Optional.empty();
        } catch (IOException e) {
            return Optional.empty();
        }
    }

    /** @return the cgroup's directory */
    public Path dir() {
        return dir;
    }

    /** @return its path as the kernel names it ({@code /name}, relative to the hierarchy's root) */
    public String path() {
        return relative;
    }

    /** @return 1 or 2 */
    public int version() {
        return version;
    }

    /** @return a shell command prefix that moves the shell into this cgroup before it execs the rest */
    public String enterCommand() {
        return "echo $$ > " + dir.resolve("cgroup.procs") + " && exec ";
    }

    /** Removes the cgroup (its processes must have ended). */
    @Override
    public void close() {
        for (int i = 0; i < 50; i++) {
            try {
                Files.deleteIfExists(dir);
                return;
            } catch (IOException e) {
                try {
                    Thread.sleep(100); // the last task is still leaving
                } catch (InterruptedException ie) {
                    Thread.currentThread().interrupt();
                    return;
                }
            }
        }
        throw new UncheckedIOException(new IOException("cannot remove cgroup " + dir));
    }
}
