package io.github.procscope.api.signals;


import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Objects;

/**
 * How a process will react to signals, read from {@code /proc/PID/status} and each
 * {@code /proc/PID/task/TID/status}: which signals it ignores or catches (one table for the whole
 * process), which each thread blocks, and which are pending.
 *
 * <p>Why per thread: {@code /proc/PID/status} shows the main thread's blocked and pending signals only.
 * A signal sent to a process is delivered to any one thread that does not block it, so a signal is
 * held back for the whole process only when every thread blocks it ({@link #blockedInEveryThread}).
 *
 * <pre>{@code
 * Dispositions d = Procscope.system().signals().dispositions(pid);
 * if (!d.survivesHangup()) System.out.println("dies when the SSH session closes: use nohup or tmux");
 * if (!d.handlesTerm()) System.out.println("TERM ends it at once: no checkpoint");
 * }</pre>
 *
 * @param pid     the process id
 * @param process the masks of {@code /proc/PID/status}: the process's ignored and caught signals, and
 *                the main thread's blocked and pending ones
 * @param threads every thread's masks from {@code /proc/PID/task/TID/status}, ascending by thread id;
 *                threads that exited while being read are absent
 */
public record Dispositions(long pid, SignalMasks process, List<ThreadMasks> threads) {

    /** What a process does with one signal. */
    public enum Disposition {
        /** The kernel's default action ({@link Signal#defaultAction()}). */
        DEFAULT,
        /** The signal is discarded ({@code SIG_IGN}; {@code nohup} arranges this for HUP). */
        IGNORED,
        /** A handler runs ({@code SigCgt}): the program decides what the signal means. */
        CAUGHT
    }

    /**
     * One thread's masks.
     *
     * @param tid   the thread id
     * @param name  the thread's name ({@code /proc/PID/task/TID/comm}, 15 bytes at most)
     * @param masks its blocked and pending signals (ignored and caught are the process's)
     */
    public record ThreadMasks(long tid, String name, SignalMasks masks) {
        /** Checks that no component is null. */
        public ThreadMasks {
            Objects.requireNonNull(name, "name");
            Objects.requireNonNull(masks, "masks");
        }
    }

    /** Checks components and copies the list. */
    public Dispositions {
        Objects.requireNonNull(process, "process");
        threads = List.copyOf(threads);
    }

    /**
     * {@return whether the process ignores it, catches it, or leaves it to the default action}
     *
     * @param signal a signal
     */
    public Disposition disposition(Signal signal) {
        if (process.ignored().contains(signal)) {
            return Disposition.IGNORED;
        }
        if (process.caught().contains(signal)) {
            return Disposition.CAUGHT;
        }
        return Disposition.DEFAULT;
    }

    /** {@return the signals the process ignores ({@code SigIgn})} */
    public SignalSet ignored() {
        return process.ignored();
    }

    /** {@return the signals the process has handlers for ({@code SigCgt})} */
    public SignalSet caught() {
        return process.caught();
    }

    /**
     * {@return whether a hang-up (the terminal or SSH session closing) leaves the process alive: HUP is
     * ignored, as under {@code nohup}, or caught by a handler}
     */
    public boolean survivesHangup() {
        return process.survivesHangup();
    }

    /** {@return whether HUP is ignored, as {@code nohup} arranges} */
    public boolean ignoresHangup() {
        return process.ignoresHangup();
    }

    /** {@return whether a handler is installed for TERM, so TERM asks the program to stop instead of ending it} */
    public boolean handlesTerm() {
        return process.handlesTerm();
    }

    /** {@return whether TERM is ignored, so a polite stop does nothing and only KILL ends the process} */
    public boolean ignoresTerm() {
        return process.ignored().contains(Signal.TERM);
    }

    /**
     * {@return whether TERM is blocked in every thread, so a TERM sent to the process stays pending until
     * some thread unblocks it (see {@link #threadsBlocking(Signal)} for partial blocking)}
     */
    public boolean blocksTerm() {
        return blockedInEveryThread(Signal.TERM);
    }

    /**
     * {@return whether every thread blocks it (judged from the main thread when no thread could be read)}
     *
     * @param signal a signal
     */
    public boolean blockedInEveryThread(Signal signal) {
        if (threads.isEmpty()) {
            return process.blocked().contains(signal);
        }
        for (ThreadMasks t : threads) {
            if (!t.masks().blocked().contains(signal)) {
                return false;
            }
        }
        return true;
    }

    /**
     * {@return the threads that block it, ascending by thread id}
     *
     * @param signal a signal
     */
    public List<ThreadMasks> threadsBlocking(Signal signal) {
        Objects.requireNonNull(signal, "signal");
        List<ThreadMasks> out = new ArrayList<>();
        for (ThreadMasks t : threads) {
            if (t.masks().blocked().contains(signal)) {
                out.add(t);
            }
        }
        return Collections.unmodifiableList(out);
    }

    /**
     * {@return every pending signal: those pending for the whole process ({@code ShdPnd}) and for any thread
     * ({@code SigPnd})}
     */
    public SignalSet pending() {
        SignalSet all = process.sharedPending().union(process.pending());
        for (ThreadMasks t : threads) {
            all = all.union(t.masks().pending());
        }
        return all;
    }
}
