package io.github.procscope.api.diagnose;

import java.time.Instant;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * One out-of-memory kill as the kernel logged it ({@code Killed process N (comm) total-vm:...}), merged
 * with the {@code oom-kill:constraint=...} line of the same kill where the kernel printed one (4.19+).
 * The kernel sends SIGKILL: the process leaves no traceback, and its parent sees exit status 137.
 *
 * @param pid           the killed process
 * @param comm          its command name
 * @param time          when the kernel logged it (boot time plus the log's monotonic timestamp; off by
 *                      the time the machine spent suspended); empty for a log without timestamps
 * @param totalVmBytes  its virtual size ({@code total-vm})
 * @param anonRssBytes  its resident anonymous memory ({@code anon-rss})
 * @param fileRssBytes  its resident file pages ({@code file-rss})
 * @param shmemRssBytes its resident shared memory ({@code shmem-rss}; since 4.5)
 * @param uid           its user id ({@code UID:}; since 4.20)
 * @param memoryCgroup  whether a memory cgroup's limit was hit ({@code Memory cgroup out of memory}), not
 *                      the whole machine's memory
 * @param cgroup        the killed task's memory cgroup ({@code task_memcg=}), when logged
 * @param constraint    the kernel's reason ({@code CONSTRAINT_MEMCG}, {@code CONSTRAINT_NONE}, ...), when logged
 */
public record OomKill(long pid, String comm, Optional<Instant> time, OptionalLong totalVmBytes,
                      OptionalLong anonRssBytes, OptionalLong fileRssBytes, OptionalLong shmemRssBytes,
                      OptionalLong uid, boolean memoryCgroup, Optional<String> cgroup, Optional<String> constraint) {
    /** Checks that no component is null. */
    public OomKill {
        Objects.requireNonNull(comm, "comm");
        Objects.requireNonNull(time, "time");
        Objects.requireNonNull(totalVmBytes, "totalVmBytes");
        Objects.requireNonNull(anonRssBytes, "anonRssBytes");
        Objects.requireNonNull(fileRssBytes, "fileRssBytes");
        Objects.requireNonNull(shmemRssBytes, "shmemRssBytes");
        Objects.requireNonNull(uid, "uid");
        Objects.requireNonNull(cgroup, "cgroup");
        Objects.requireNonNull(constraint, "constraint");
    }
}
