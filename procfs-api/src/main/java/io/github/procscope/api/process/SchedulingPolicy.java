package io.github.procscope.api.process;

import java.util.Optional;

/** Linux scheduling policies ({@code sched(7)}), by their {@code SCHED_*} number. */
public enum SchedulingPolicy {
    /** 0, {@code SCHED_OTHER}: the default time-sharing policy. */
    OTHER(0),
    /** 1, {@code SCHED_FIFO}: real-time, first in first out. */
    FIFO(1),
    /** 2, {@code SCHED_RR}: real-time, round robin. */
    RR(2),
    /** 3, {@code SCHED_BATCH}: for CPU-bound batch work. */
    BATCH(3),
    /** 4, {@code SCHED_ISO}: reserved, not implemented by mainline kernels. */
    ISO(4),
    /** 5, {@code SCHED_IDLE}: only when nothing else runs. */
    IDLE(5),
    /** 6, {@code SCHED_DEADLINE}: earliest deadline first. */
    DEADLINE(6),
    /** 7, {@code SCHED_EXT}: a BPF scheduler (since Linux 6.12). */
    EXT(7);

    private final int number;

    SchedulingPolicy(int number) {
        this.number = number;
    }

    /** {@return the {@code SCHED_*} number} */
    public int number() {
        return number;
    }

    /**
     * {@return the policy, or empty if unknown}
     *
     * @param number a {@code SCHED_*} number
     */
    public static Optional<SchedulingPolicy> fromNumber(int number) {
        for (SchedulingPolicy p : values()) {
            if (p.number == number) {
                return Optional.of(p);
            }
        }
        return Optional.empty();
    }
}
