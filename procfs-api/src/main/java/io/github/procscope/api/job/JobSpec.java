package io.github.procscope.api.job;

import io.github.procscope.api.signals.Signal;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * What to run and how to supervise it. Immutable; start from {@link #of(List)} and change one setting at a
 * time with the {@code with...} methods.
 *
 * @param command          the program and its arguments; the program is looked up on {@code PATH}
 * @param environment      variables added to (or replacing those of) this JVM's environment
 * @param grace            how long the job may take to end after a forwarded signal, and how long a process
 *                         left behind at the end may take to end after TERM, before KILL
 * @param sampleInterval   how often the job's processes are sampled (peak memory, CPU, processes seen)
 * @param forwardedSignals the signals that, received by this JVM while the job runs, are passed on to every
 *                         process of the job; empty to forward none
 * @param memoryLimitBytes a memory limit for the whole job: it then runs in a memory cgroup of its own (v2,
 *                         or v1 where that is what the machine has), made for it and removed after it; empty
 *                         for none
 * @param hangupsIgnored   whether the job starts with SIGHUP ignored (as under {@code nohup}), so that a
 *                         hang-up sent to it does not end it; its processes inherit that disposition until
 *                         they set a handler of their own
 * @param lineBuffered     whether line-buffered output is requested from the runtimes that can be asked from
 *                         outside: {@code PYTHONUNBUFFERED=1} for Python, and the C library's standard output
 *                         and error through {@code stdbuf -oL -eL} (GNU coreutils), where {@code stdbuf} is
 *                         installed; for output that goes to a file, which is otherwise written in blocks
 * @param pss              whether each sample also reads the proportional set size of every process
 *                         ({@code /proc/PID/smaps_rollup}; costlier than RSS), for {@link JobReport#peakPssBytes()}
 * @param output           a file that receives the job's standard output and error, appended, instead of this
 *                         JVM's: the job writes into a pipe that this JVM copies to the file, so that output the
 *                         file cannot take (a full disk) is counted in {@link JobReport#lostOutput()} instead of
 *                         lost without a word; empty to give the job this JVM's standard output and error
 * @param ignoredSignalsForwarded whether a forwarded signal that this JVM ignores, as inherited from its parent
 *                         ({@code trap '' TERM}, {@code nohup}'s HUP, INT of a background job), is made to take
 *                         its default action again so that it can be caught and forwarded (and ignored again
 *                         once the job has ended); otherwise such a signal is not forwarded, and
 *                         {@link Job#notForwarded()} says so
 */
public record JobSpec(List<String> command, Map<String, String> environment, Duration grace,
                      Duration sampleInterval, List<Signal> forwardedSignals, OptionalLong memoryLimitBytes,
                      boolean hangupsIgnored, boolean lineBuffered, boolean pss, Optional<Path> output,
                      boolean ignoredSignalsForwarded) {
    /**
     * The signals forwarded unless told otherwise: what schedulers send to preempt (TERM, INT, HUP, USR1), the
     * signals a {@link io.github.procscope.api.signals.PreemptionGuard} can take. USR2 is not among them: HotSpot
     * suspends and resumes threads with it, so a guard refuses it ({@code JVM_OWNED}) and a supervisor in a JVM
     * cannot receive it to pass it on.
     */
    public static final List<Signal> DEFAULT_FORWARDED =
            List.of(Signal.TERM, Signal.INT, Signal.HUP, Signal.USR1);
    /** The grace period unless told otherwise: 10 seconds, as {@code docker stop} gives. */
    public static final Duration DEFAULT_GRACE = Duration.ofSeconds(10);
    /** The sample interval unless told otherwise: 1 second. */
    public static final Duration DEFAULT_INTERVAL = Duration.ofSeconds(1);
    private static final Duration MAX_DURATION = Duration.ofDays(365);
    private static final long MIN_MEMORY_LIMIT = 1L << 20;
    private static final long MAX_MEMORY_LIMIT = 1L << 62;

    /**
     * Checks and copies the components.
     *
     * @throws IllegalArgumentException if the command is empty or holds an empty or NUL-bearing word, an
     *                                  environment name is empty or holds {@code =} or NUL, the grace period
     *                                  is negative or over a year, or the sample interval is under 10 ms or
     *                                  over a year, KILL or STOP is to be forwarded, or the memory limit is
     *                                  under 1 MiB or over 2^62 bytes
     */
    public JobSpec {
        Objects.requireNonNull(command, "command");
        Objects.requireNonNull(environment, "environment");
        Objects.requireNonNull(grace, "grace");
        Objects.requireNonNull(sampleInterval, "sampleInterval");
        Objects.requireNonNull(forwardedSignals, "forwardedSignals");
        Objects.requireNonNull(memoryLimitBytes, "memoryLimitBytes");
        Objects.requireNonNull(output, "output");
        command = List.copyOf(command);
        if (command.isEmpty()) {
            throw new IllegalArgumentException("a job needs a command: the program to run and its arguments");
        }
        if (command.get(0).isEmpty()) {
            throw new IllegalArgumentException("the program name of a job is empty");
        }
        for (String word : command) {
            if (word.indexOf('\0') >= 0) {
                throw new IllegalArgumentException("a command word holds a NUL character: " + word.replace('\0', '?'));
            }
        }
        environment = Map.copyOf(Objects.requireNonNull(environment, "environment"));
        for (Map.Entry<String, String> e : environment.entrySet()) {
            if (e.getKey().isEmpty() || e.getKey().indexOf('=') >= 0 || e.getKey().indexOf('\0') >= 0
                    || e.getValue().indexOf('\0') >= 0) {
                throw new IllegalArgumentException("not an environment variable: '" + e.getKey().replace('\0', '?')
                        + "' (a name is not empty and holds no '=' or NUL; a value holds no NUL)");
            }
        }
        Objects.requireNonNull(grace, "grace");
        if (grace.isNegative() || grace.compareTo(MAX_DURATION) > 0) {
            throw new IllegalArgumentException("a grace period is 0 to 365 days, not " + grace);
        }
        Objects.requireNonNull(sampleInterval, "sampleInterval");
        if (sampleInterval.compareTo(Duration.ofMillis(10)) < 0 || sampleInterval.compareTo(MAX_DURATION) > 0) {
            throw new IllegalArgumentException("a sample interval is 10 ms to 365 days, not " + sampleInterval);
        }
        forwardedSignals = List.copyOf(Objects.requireNonNull(forwardedSignals, "forwardedSignals"));
        if (forwardedSignals.contains(Signal.KILL) || forwardedSignals.contains(Signal.STOP)) {
            throw new IllegalArgumentException("KILL and STOP cannot be caught, so they cannot be forwarded");
        }
        Objects.requireNonNull(memoryLimitBytes, "memoryLimitBytes");
        if (memoryLimitBytes.isPresent() && (memoryLimitBytes.getAsLong() < MIN_MEMORY_LIMIT
                || memoryLimitBytes.getAsLong() > MAX_MEMORY_LIMIT)) {
            throw new IllegalArgumentException("a memory limit is 1 MiB to 2^62 bytes, not " + memoryLimitBytes.getAsLong());
        }
    }

    /**
     * {@return a spec with the defaults: no added environment, {@link #DEFAULT_GRACE}, {@link
     * #DEFAULT_INTERVAL}, {@link #DEFAULT_FORWARDED}, no memory limit, hang-ups not ignored, output
     * buffering left as it is, no PSS, this JVM's standard output and error, signals ignored by this JVM not
     * forwarded}
     *
     * @param command the program and its arguments
     */
    public static JobSpec of(List<String> command) {
        return new JobSpec(command, Map.of(), DEFAULT_GRACE, DEFAULT_INTERVAL, DEFAULT_FORWARDED, OptionalLong.empty(),
                false, false, false, Optional.empty(), false);
    }

    /**
     * {@return {@link #of(List)} of those words}
     *
     * @param command the program and its arguments
     */
    public static JobSpec of(String... command) {
        return of(List.of(command));
    }

    /**
     * {@return a copy with those variables}
     *
     * @param variables variables to add to this JVM's environment
     */
    public JobSpec withEnvironment(Map<String, String> variables) {
        return new JobSpec(command, variables, grace, sampleInterval, forwardedSignals, memoryLimitBytes,
                hangupsIgnored, lineBuffered, pss, output, ignoredSignalsForwarded);
    }

    /**
     * {@return a copy with that grace period}
     *
     * @param period the grace period
     */
    public JobSpec withGrace(Duration period) {
        return new JobSpec(command, environment, period, sampleInterval, forwardedSignals, memoryLimitBytes,
                hangupsIgnored, lineBuffered, pss, output, ignoredSignalsForwarded);
    }

    /**
     * {@return a copy with that sample interval}
     *
     * @param interval the sample interval
     */
    public JobSpec withSampleInterval(Duration interval) {
        return new JobSpec(command, environment, grace, interval, forwardedSignals, memoryLimitBytes,
                hangupsIgnored, lineBuffered, pss, output, ignoredSignalsForwarded);
    }

    /**
     * {@return a copy forwarding those signals}
     *
     * @param signals the signals to forward
     */
    public JobSpec withForwardedSignals(List<Signal> signals) {
        return new JobSpec(command, environment, grace, sampleInterval, signals, memoryLimitBytes,
                hangupsIgnored, lineBuffered, pss, output, ignoredSignalsForwarded);
    }

    /**
     * {@return a copy that runs the job in a memory cgroup of its own with that limit}
     *
     * @param bytes the memory limit of the whole job
     */
    public JobSpec withMemoryLimit(long bytes) {
        return new JobSpec(command, environment, grace, sampleInterval, forwardedSignals, OptionalLong.of(bytes),
                hangupsIgnored, lineBuffered, pss, output, ignoredSignalsForwarded);
    }

    /**
     * {@return a copy with that setting}
     *
     * @param ignored whether the job starts with SIGHUP ignored
     */
    public JobSpec withHangupsIgnored(boolean ignored) {
        return new JobSpec(command, environment, grace, sampleInterval, forwardedSignals, memoryLimitBytes,
                ignored, lineBuffered, pss, output, ignoredSignalsForwarded);
    }

    /**
     * {@return a copy with that setting}
     *
     * @param requested whether line-buffered output is requested from the job's runtimes
     */
    public JobSpec withLineBuffering(boolean requested) {
        return new JobSpec(command, environment, grace, sampleInterval, forwardedSignals, memoryLimitBytes,
                hangupsIgnored, requested, pss, output, ignoredSignalsForwarded);
    }

    /**
     * {@return a copy with that setting}
     *
     * @param read whether each sample reads the proportional set size of the job's processes
     */
    public JobSpec withPss(boolean read) {
        return new JobSpec(command, environment, grace, sampleInterval, forwardedSignals, memoryLimitBytes,
                hangupsIgnored, lineBuffered, read, output, ignoredSignalsForwarded);
    }

    /**
     * {@return a copy that writes the job's output there}
     *
     * @param file the file that receives the job's standard output and error (appended; made if missing)
     */
    public JobSpec withOutput(Path file) {
        return new JobSpec(command, environment, grace, sampleInterval, forwardedSignals, memoryLimitBytes,
                hangupsIgnored, lineBuffered, pss, Optional.of(Objects.requireNonNull(file, "file")),
                ignoredSignalsForwarded);
    }

    /**
     * {@return a copy with that setting}
     *
     * @param forwarded whether forwarded signals that this JVM ignores (as inherited) are taken and forwarded
     */
    public JobSpec withIgnoredSignalsForwarded(boolean forwarded) {
        return new JobSpec(command, environment, grace, sampleInterval, forwardedSignals, memoryLimitBytes,
                hangupsIgnored, lineBuffered, pss, output, forwarded);
    }
}
