package io.github.procscope.api.job;

import io.github.procscope.api.core.ProcessKey;
import io.github.procscope.api.process.ProcessState;

import java.time.Duration;
import java.time.Instant;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalDouble;
import java.util.OptionalLong;
import java.util.TreeMap;

/**
 * A job's processes at one refresh, with their totals. Every total is the sum of the members' values (of those
 * members that have the value).
 *
 * @param root           the job's root
 * @param takenAt        when the refresh began
 * @param uptime         the system's uptime at the refresh, the clock of {@code cpuPercent}
 * @param members        the processes, the root first (when alive), then in the order they were found
 * @param joined         processes that are members now and were not at the previous refresh (all of them on the
 *                       first)
 * @param left           processes that were members at the previous refresh and are not now: exited, or reaped
 * @param discovery      how the members were found
 * @param fallbackReason why the tree could not use {@link Discovery#CHILDREN_FILES}; empty when it does
 */
public record JobSample(ProcessKey root, Instant takenAt, Duration uptime, List<JobMember> members,
                        List<ProcessKey> joined, List<ProcessKey> left, Discovery discovery,
                        Optional<String> fallbackReason) {
    /** Checks and copies the components. */
    public JobSample {
        Objects.requireNonNull(root, "root");
        Objects.requireNonNull(takenAt, "takenAt");
        Objects.requireNonNull(uptime, "uptime");
        members = List.copyOf(members);
        joined = List.copyOf(joined);
        left = List.copyOf(left);
        Objects.requireNonNull(discovery, "discovery");
        Objects.requireNonNull(fallbackReason, "fallbackReason");
        if ((discovery == Discovery.FULL_SNAPSHOT) != fallbackReason.isPresent()) {
            throw new IllegalArgumentException("a fallback reason comes with FULL_SNAPSHOT, and only with it");
        }
    }

    /** {@return whether the root itself is still among the members (alive, not a zombie)} */
    public boolean rootAlive() {
        return !members.isEmpty() && root.matches(members.get(0).process().key())
                && members.get(0).process().state() != io.github.procscope.api.process.ProcessState.ZOMBIE;
    }

    /**
     * {@return the member with this pid}
     *
     * @param pid a process id
     */
    public Optional<JobMember> member(long pid) {
        return members.stream().filter(m -> m.pid() == pid).findFirst();
    }

    /** {@return the sum of the members' RSS, in bytes} */
    public long rssBytes() {
        long sum = 0;
        for (JobMember m : members) {
            sum += m.rssBytes();
        }
        return sum;
    }

    /** {@return the sum of the members' PSS, in bytes; empty when no member has one} */
    public OptionalLong pssBytes() {
        return sumLong(members.stream().map(JobMember::pssBytes).toList());
    }

    /** {@return the sum of the members' CPU since the previous refresh, in percent of one CPU; empty when none has one} */
    public OptionalDouble cpuPercent() {
        double sum = 0;
        boolean any = false;
        for (JobMember m : members) {
            if (m.cpuPercent().isPresent()) {
                sum += m.cpuPercent().getAsDouble();
                any = true;
            }
        }
        return any ? OptionalDouble.of(sum) : OptionalDouble.empty();
    }

    /** {@return the sum of the members' threads} */
    public int threads() {
        int sum = 0;
        for (JobMember m : members) {
            sum += m.process().threads();
        }
        return sum;
    }

    /** {@return the sum of the members' open file descriptors; empty when no member has a count} */
    public OptionalLong openFds() {
        long sum = 0;
        boolean any = false;
        for (JobMember m : members) {
            if (m.openFds().isPresent()) {
                sum += m.openFds().getAsInt();
                any = true;
            }
        }
        return any ? OptionalLong.of(sum) : OptionalLong.empty();
    }

    /** {@return GPU memory per GPU index, summed over the members} */
    public Map<Integer, Long> gpuMemoryBytes() {
        Map<Integer, Long> out = new TreeMap<>();
        for (JobMember m : members) {
            m.gpuMemoryBytes().forEach((gpu, bytes) -> out.merge(gpu, bytes, Long::sum));
        }
        return Collections.unmodifiableMap(out);
    }

    private static OptionalLong sumLong(List<OptionalLong> values) {
        long sum = 0;
        boolean any = false;
        for (OptionalLong v : values) {
            if (v.isPresent()) {
                sum += v.getAsLong();
                any = true;
            }
        }
        return any ? OptionalLong.of(sum) : OptionalLong.empty();
    }
}
