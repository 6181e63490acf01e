package io.github.procscope.api.signals;

import io.github.procscope.api.core.ProcessKey;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * The outcome of a graceful stop: every process that was part of the target, how it ended and after
 * how long. Processes are listed in the order they were found (the first scan, then those that
 * appeared later: children forked during the shutdown), and by pid within one scan; the process the caller
 * named (the one stopped, or the root of a tree) comes first, as {@link Ending#GONE} when it was not running
 * when the stop started.
 *
 * @param target      what was stopped, in words ({@code "process 4121 (python)"},
 *                    {@code "process group 4121"}, {@code "tree of 4121 (python)"})
 * @param signal      the polite signal that was sent first
 * @param gracePeriod the grace period that was allowed
 * @param processes   each process, as found
 * @param elapsed     how long the whole stop took
 */
public record StopReport(String target, Signal signal, Duration gracePeriod, List<StoppedProcess> processes,
                         Duration elapsed) {

    /** How one process ended. */
    public enum Ending {
        /** It ended after the polite signal ({@link StopReport#signal()}, TERM unless chosen otherwise). */
        TERM,
        /** It outlived the grace period and ended after KILL. */
        KILL,
        /**
         * It was gone before anything was sent to it (exited, or its pid now names another process, which is not
         * listed for it and got nothing).
         */
        GONE,
        /** It was still alive when the wait after KILL ran out (for example stuck in state D). */
        SURVIVED,
        /** The caller may not signal it ({@code EPERM}); it was left alone and is still alive. */
        NOT_PERMITTED
    }

    /**
     * One process of a stop.
     *
     * @param key        its identity: pid and start time, with the pidfs inode of the pidfd it was checked and
     *                   signalled through where the kernel has one (Linux 6.9 and later); for the process the
     *                   caller named, the caller's key (completed with that inode)
     * @param comm       its command name, as it was when found ({@code /proc/PID/stat} field 2); {@code "?"} for the
     *                   process the caller named when it was gone before the stop could read it (or its identity
     *                   could not be checked, {@link Ending#NOT_PERMITTED})
     * @param ending     how it ended, or why it did not
     * @param after      time from the start of the stop until it was seen gone (for
     *                   {@link Ending#SURVIVED} and {@link Ending#NOT_PERMITTED}, until the stop gave up on it)
     * @param exitStatus how it ended, as its parent sees it: present only when it was a child of this JVM
     *                   and its status could be read: from {@link Process#exitValue()} when the stop was
     *                   given the {@link Process} (shell convention), or from {@code waitid(2)} with
     *                   {@code WNOWAIT} when it was still a zombie (exact; the child is left for its owner
     *                   to reap). Empty for every other process: only a parent learns how its child ended
     */
    public record StoppedProcess(ProcessKey key, String comm, Ending ending, Duration after,
                                 Optional<ExitStatus> exitStatus) {
        /** Checks that no component is null. */
        public StoppedProcess {
            Objects.requireNonNull(key, "key");
            Objects.requireNonNull(comm, "comm");
            Objects.requireNonNull(ending, "ending");
            Objects.requireNonNull(after, "after");
            Objects.requireNonNull(exitStatus, "exitStatus");
        }

        /** {@return the process id} */
        public long pid() {
            return key.pid();
        }

        /** {@return whether the process is gone (ended by TERM or KILL, or already gone)} */
        public boolean gone() {
            return ending == Ending.TERM || ending == Ending.KILL || ending == Ending.GONE;
        }

        @Override
        public String toString() {
            return key.pid() + " (" + comm + "): " + ending + " after " + after.toMillis() + " ms"
                    + exitStatus.map(s -> ", " + s).orElse("");
        }
    }

    /** Checks components and copies the list. */
    public StopReport {
        Objects.requireNonNull(target, "target");
        Objects.requireNonNull(signal, "signal");
        Objects.requireNonNull(gracePeriod, "gracePeriod");
        processes = List.copyOf(processes);
        Objects.requireNonNull(elapsed, "elapsed");
    }

    /** {@return whether every process is gone (true for a target that had no processes)} */
    public boolean allGone() {
        for (StoppedProcess p : processes) {
            if (!p.gone()) {
                return false;
            }
        }
        return true;
    }

    /** {@return whether some process outlived the grace period and needed KILL} */
    public boolean killNeeded() {
        for (StoppedProcess p : processes) {
            if (p.ending() == Ending.KILL) {
                return true;
            }
        }
        return false;
    }

    /** {@return the processes that are still alive: {@link Ending#SURVIVED} or {@link Ending#NOT_PERMITTED}} */
    public List<StoppedProcess> survivors() {
        List<StoppedProcess> out = new ArrayList<>();
        for (StoppedProcess p : processes) {
            if (!p.gone()) {
                out.add(p);
            }
        }
        return Collections.unmodifiableList(out);
    }

    /**
     * {@return the process with that pid in this report, if any}
     *
     * @param pid a process id
     */
    public Optional<StoppedProcess> find(long pid) {
        for (StoppedProcess p : processes) {
            if (p.pid() == pid) {
                return Optional.of(p);
            }
        }
        return Optional.empty();
    }

    /** {@return a summary line, then one line per process} */
    @Override
    public String toString() {
        StringBuilder b = new StringBuilder();
        b.append("stop of ").append(target).append(" with ").append(signal).append(", grace ")
                .append(gracePeriod.toMillis()).append(" ms: ").append(processes.size()).append(" process(es), ")
                .append(allGone() ? "all gone" : survivors().size() + " still alive")
                .append(killNeeded() ? ", KILL needed" : "").append(", took ").append(elapsed.toMillis())
                .append(" ms");
        for (StoppedProcess p : processes) {
            b.append(System.lineSeparator()).append("  ").append(p);
        }
        return b.toString();
    }
}
