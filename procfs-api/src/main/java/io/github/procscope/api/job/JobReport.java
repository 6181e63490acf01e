package io.github.procscope.api.job;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * What a job did and how it ended.
 *
 * <p>Memory, CPU and the processes seen come from samples of the job's processes taken every
 * {@link JobSpec#sampleInterval()} (and once more as its first process ends): a process that lives and
 * dies between two samples is not seen, and a peak between two samples is missed.
 *
 * @param command               the command it ran
 * @param leaderPid             the pid of its first process (also its session and process group id)
 * @param startTime             when it was started
 * @param endTime               when its last process had ended
 * @param exit                  how it ended: its exit status, the cause and an explanation
 * @param peakRssBytes          the largest resident memory of all its processes together, in one sample
 * @param peakProcessRssBytes   the largest resident memory of one of its processes, in any sample
 * @param peakGpuMemoryBytes    the largest GPU memory its processes held, per GPU index; empty without GPUs
 * @param cpu                   user and system CPU time of its processes, as last sampled (a zombie's
 *                              includes that of the children it reaped)
 * @param processesStarted      how many distinct processes of the job the samples saw, the first included
 * @param stragglers            the processes still alive when its first process ended, all ended since
 * @param forwardedSignals      the signals passed on to it, in order
 * @param peakPssBytes          the largest proportional set size of all its processes together, in one sample;
 *                              empty unless {@link JobSpec#pss()} was asked for (or no process could be read)
 * @param peakThreads           the most threads of all its processes together, in one sample
 * @param events                its processes seen to start and to end, in the order seen (at most
 *                              {@link #MAX_EVENTS})
 * @param eventsOmitted         how many events were left out of {@code events} past {@link #MAX_EVENTS}
 * @param ghosts                GPU memory that NVML still listed for former members once the job had ended;
 *                              empty without GPUs
 * @param lostOutput            output the job wrote that its file ({@link JobSpec#output()}) could not take;
 *                              empty if all of it was written (or the job wrote to this JVM's streams)
 */
public record JobReport(List<String> command, long leaderPid, Instant startTime, Instant endTime,
                        JobEnding exit, long peakRssBytes, long peakProcessRssBytes,
                        Map<Integer, Long> peakGpuMemoryBytes, Duration cpu, int processesStarted,
                        List<Straggler> stragglers, List<ForwardedSignal> forwardedSignals,
                        OptionalLong peakPssBytes, int peakThreads, List<JobEvent> events, long eventsOmitted,
                        List<GpuGhost> ghosts, Optional<LostOutput> lostOutput) {
    /** The most lifecycle events a report keeps: a job that forks without end cannot grow it without bound. */
    public static final int MAX_EVENTS = 10_000;

    /** Checks and copies the components. */
    public JobReport {
        command = List.copyOf(Objects.requireNonNull(command, "command"));
        Objects.requireNonNull(startTime, "startTime");
        Objects.requireNonNull(endTime, "endTime");
        if (endTime.isBefore(startTime)) {
            throw new IllegalArgumentException("a job cannot end (" + endTime + ") before it starts (" + startTime + ")");
        }
        Objects.requireNonNull(exit, "exit");
        if (peakRssBytes < 0 || peakProcessRssBytes < 0 || processesStarted < 0) {
            throw new IllegalArgumentException("peaks and counts are 0 or more");
        }
        peakGpuMemoryBytes = Map.copyOf(Objects.requireNonNull(peakGpuMemoryBytes, "peakGpuMemoryBytes"));
        Objects.requireNonNull(cpu, "cpu");
        stragglers = List.copyOf(Objects.requireNonNull(stragglers, "stragglers"));
        forwardedSignals = List.copyOf(Objects.requireNonNull(forwardedSignals, "forwardedSignals"));
        Objects.requireNonNull(peakPssBytes, "peakPssBytes");
        if (peakThreads < 0 || eventsOmitted < 0) {
            throw new IllegalArgumentException("counts are 0 or more");
        }
        events = List.copyOf(Objects.requireNonNull(events, "events"));
        if (events.size() > MAX_EVENTS) {
            throw new IllegalArgumentException("a report keeps at most " + MAX_EVENTS + " events, not " + events.size());
        }
        ghosts = List.copyOf(Objects.requireNonNull(ghosts, "ghosts"));
        Objects.requireNonNull(lostOutput, "lostOutput");
    }

    /** {@return how long it ran: from {@link #startTime()} to {@link #endTime()}} */
    public Duration duration() {
        return Duration.between(startTime, endTime);
    }

    /**
     * {@return the peak GPU memory of one GPU, if the job was seen on it}
     *
     * @param index the GPU's index
     */
    public OptionalLong peakGpuMemoryBytes(int index) {
        Long v = peakGpuMemoryBytes.get(index);
        return v == null ? OptionalLong.empty() : OptionalLong.of(v);
    }
}
