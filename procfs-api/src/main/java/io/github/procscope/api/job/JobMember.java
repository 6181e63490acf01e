package io.github.procscope.api.job;

import io.github.procscope.api.process.ProcessInfo;

import java.util.Collections;
import java.util.Map;
import java.util.Objects;
import java.util.OptionalDouble;
import java.util.OptionalInt;
import java.util.OptionalLong;
import java.util.TreeMap;

/**
 * One process of a job, at one refresh.
 *
 * @param process        the process as read at this refresh
 * @param adopted        whether it is in the job without being a descendant of the root now: it was re-parented
 *                       away (a double-forked worker, an orphan adopted by PID 1 or a subreaper) and is kept
 *                       because it was a member before, or because it is in a process group or session led by
 *                       a member
 * @param cpuPercent     CPU used since the previous refresh, in percent of one CPU; empty on the first refresh,
 *                       and for a process found later that started before the previous refresh
 * @param pssBytes       proportional set size in bytes; empty unless {@link JobTreeOptions#pss()}, or when the
 *                       file could not be read (permission, a zombie)
 * @param openFds        open file descriptors; empty unless {@link JobTreeOptions#openFds()}, or when the
 *                       directory could not be read
 * @param gpuMemoryBytes device memory per GPU index, as NVML reports it; empty without {@link JobTreeOptions#gpus()}
 *                       or when the process uses no GPU
 */
public record JobMember(ProcessInfo process, boolean adopted, OptionalDouble cpuPercent, OptionalLong pssBytes,
                        OptionalInt openFds, Map<Integer, Long> gpuMemoryBytes) {
    /** Checks and copies the components. */
    public JobMember {
        Objects.requireNonNull(process, "process");
        Objects.requireNonNull(cpuPercent, "cpuPercent");
        Objects.requireNonNull(pssBytes, "pssBytes");
        Objects.requireNonNull(openFds, "openFds");
        gpuMemoryBytes = Collections.unmodifiableSortedMap(new TreeMap<>(Objects.requireNonNull(gpuMemoryBytes,
                "gpuMemoryBytes")));
    }

    /** {@return the process id} */
    public long pid() {
        return process.pid();
    }

    /** {@return resident memory in bytes ({@link ProcessInfo#rssBytes()})} */
    public long rssBytes() {
        return process.rssBytes();
    }
}
