package io.github.procscope.linux.jobs;

import io.github.procscope.api.core.ProcscopeException;
import io.github.procscope.linux.sys.ProcBuffer;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.OptionalLong;

/**
 * A cgroup made for one job: a memory cgroup with its limit ({@link #create}: v2 where the unified hierarchy
 * has the memory controller, else v1's memory hierarchy; made beside this JVM's own cgroup where that is
 * writable, else at the hierarchy's root), or a v2 cgroup without controllers that only holds the job's
 * processes together so that they can all be ended at once through {@code cgroup.kill}, even after the
 * supervisor's death ({@link #forKilling}). Removed by {@link #remove()} once the job's processes have ended.
 */
final class JobCgroup {
    private final Path dir;
    private final String path;
    private final int version;

    private JobCgroup(Path dir, String path, int version) {
        this.dir = dir;
        this.path = path;
        this.version = version;
    }

    /**
     * @throws ProcscopeException if no memory cgroup can be made here (no controller, not permitted)
     */
    static JobCgroup create(Path sysfsRoot, Path procfsRoot, long limitBytes) {
        Path root = sysfsRoot.resolve("fs/cgroup");
        String name = "procscope-job-" + ProcessHandle.current().pid() + "-" + System.nanoTime();
        try {
            Path controllers = root.resolve("cgroup.controllers");
            int version;
            Path hierarchy;
            String own;
            // Files.exists, not isRegularFile: a FIFO or device there is refused by name, not taken for no v2.
            if (Files.exists(controllers) && List.of(readSmall(controllers).trim().split("\\s+"))
                    .contains("memory")) {
                version = 2;
                hierarchy = root;
                own = ownPath(procfsRoot, "0::");
            } else if (Files.isRegularFile(root.resolve("memory/memory.limit_in_bytes"))) {
                version = 1;
                hierarchy = root.resolve("memory");
                own = ownPath(procfsRoot, "memory");
            } else {
                throw new ProcscopeException("no memory cgroup controller under " + root
                        + " (neither v2 with the memory controller nor v1's memory hierarchy)");
            }
            // v2 forbids processes in an inner cgroup that has controllers enabled for its children: put the
            // job at the root of the hierarchy there; v1 nests it beside this JVM when it may.
            String parent = version == 1 && own != null && !own.equals("/") ? own : "";
            Path dir = hierarchy.resolve(parent.isEmpty() ? name : parent.substring(1) + "/" + name);
            try {
                Files.createDirectory(dir);
            } catch (IOException e) {
                parent = "";
                dir = hierarchy.resolve(name);
                Files.createDirectory(dir);
            }
            JobCgroup cg = new JobCgroup(dir, parent + "/" + name, version);
            try {
                if (version == 2) {
                    Files.writeString(dir.resolve("memory.max"), Long.toString(limitBytes));
                    if (Files.exists(dir.resolve("memory.swap.max"))) {
                        Files.writeString(dir.resolve("memory.swap.max"), "0");
                    }
                } else {
                    Files.writeString(dir.resolve("memory.limit_in_bytes"), Long.toString(limitBytes));
                    if (Files.exists(dir.resolve("memory.swappiness"))) {
                        Files.writeString(dir.resolve("memory.swappiness"), "0");
                    }
                }
            } catch (IOException e) {
                cg.remove();
                throw e;
            }
            return cg;
        } catch (IOException e) {
            throw new ProcscopeException("cannot make a memory cgroup for the job under " + root + ": " + e, e);
        } catch (ProcscopeException e) {
            throw new ProcscopeException("cannot make a memory cgroup for the job under " + root + ": "
                    + e.getMessage(), e);
        }
    }

    /**
     * Makes a v2 cgroup for the job's processes alone, without controllers: under this JVM's own cgroup in the
     * unified hierarchy (so that the job stays inside whatever limits this JVM is under), else at the
     * hierarchy's root; only where the kernel has {@code cgroup.kill} (Linux 5.14+).
     *
     * @return the cgroup, or empty where none can be made here (no unified hierarchy, no {@code cgroup.kill}, not
     *         permitted: an unprivileged user), which is not an error
     */
    static java.util.Optional<JobCgroup> forKilling(Path sysfsRoot, Path procfsRoot) {
        Path root = sysfsRoot.resolve("fs/cgroup");
        Path unified = Files.isRegularFile(root.resolve("cgroup.controllers")) ? root
                : Files.isRegularFile(root.resolve("unified/cgroup.controllers")) ? root.resolve("unified") : null;
        if (unified == null || !Files.isWritable(unified)) {
            return java.util.Optional.empty();
        }
        String own;
        try {
            own = ownPath(procfsRoot, "0::");
        } catch (ProcscopeException e) {
            own = null; // not readable as a small regular file: the job's cgroup goes at the hierarchy's root
        }
        String name = "procscope-job-" + ProcessHandle.current().pid() + "-" + System.nanoTime();
        List<String> parents = own != null && !own.equals("/") && own.startsWith("/") && !own.contains("..")
                ? List.of(own, "") : List.of("");
        for (String parent : parents) {
            Path dir = unified.resolve(parent.isEmpty() ? name : parent.substring(1) + "/" + name);
            try {
                Files.createDirectory(dir);
            } catch (IOException | RuntimeException e) {
                continue;
            }
            JobCgroup cg = new JobCgroup(dir, parent + "/" + name, 2);
            if (cg.canKill() && Files.isWritable(cg.procsFile())) {
                return java.util.Optional.of(cg);
            }
            cg.remove();
        }
        return java.util.Optional.empty();
    }

    /** @return its directory */
    Path dir() {
        return dir;
    }

    /** @return whether every process in it can be ended at once: a v2 cgroup with {@code cgroup.kill} */
    boolean canKill() {
        return version == 2 && JobSentinel.canKill(dir);
    }

    /** The most bytes read of a cgroup or {@code /proc/self/cgroup} file here, each a few lines. */
    static final int FILE_LIMIT = 64 << 10;

    /**
     * Reads a small kernel file with the bounds of every kernel file read: only a regular file (a FIFO or a device
     * in its place is refused before it is opened, so it cannot block), and at most {@link #FILE_LIMIT} bytes.
     *
     * @return its text; empty if it is not there or cannot be read
     * @throws ProcscopeException naming the file, if it is not a regular file or is too large
     */
    static String readSmall(Path file) {
        ProcBuffer buf = new ProcBuffer();
        if (buf.read(file, FILE_LIMIT) != ProcBuffer.Result.OK) {
            return "";
        }
        return new String(buf.bytes(), 0, buf.length(), StandardCharsets.UTF_8);
    }

    /** @throws ProcscopeException if {@code self/cgroup} is not a small regular file */
    private static String ownPath(Path procfsRoot, String controller) {
        List<String> lines = readSmall(procfsRoot.resolve("self/cgroup")).lines().toList();
        for (String l : lines) {
            if (controller.equals("0::") && l.startsWith("0::")) {
                return l.substring(3);
            }
            String[] f = l.split(":", 3);
            if (f.length == 3 && List.of(f[1].split(",")).contains(controller)) {
                return f[2];
            }
        }
        return null;
    }

    /** @return the file a process's pid is written to, to move it in */
    Path procsFile() {
        return dir.resolve("cgroup.procs");
    }

    /** @return its path as the kernel names it in an OOM report ({@code task_memcg=}) */
    String path() {
        return path;
    }

    /** @return how many OOM kills the kernel counted in it, where it counts them */
    OptionalLong oomKills() {
        Path f = dir.resolve(version == 2 ? "memory.events" : "memory.oom_control");
        try {
            for (String l : readSmall(f).lines().toList()) {
                if (l.startsWith("oom_kill ")) {
                    return OptionalLong.of(Long.parseLong(l.substring(9).trim()));
                }
            }
        } catch (ProcscopeException | NumberFormatException e) {
            // not counted here: not a small regular file, or not a number
        }
        return OptionalLong.empty();
    }

    /** Removes it, waiting a little for the last task to leave; a failure leaves it behind, unreported. */
    void remove() {
        for (int i = 0; i < 50; i++) {
            try {
                Files.deleteIfExists(dir);
                return;
            } catch (IOException e) {
                try {
                    Thread.sleep(50);
                } catch (InterruptedException ie) {
                    Thread.currentThread().interrupt();
                    return;
                }
            }
        }
    }
}
