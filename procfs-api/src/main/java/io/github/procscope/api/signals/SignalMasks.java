package io.github.procscope.api.signals;

import java.util.Objects;

/**
 * A task's signal dispositions and pending signals, from the {@code SigPnd}, {@code ShdPnd},
 * {@code SigBlk}, {@code SigIgn} and {@code SigCgt} lines of {@code /proc/PID/status} (or
 * {@code /proc/PID/task/TID/status}: blocked and pending signals are per thread, and the process's
 * file shows its main thread).
 *
 * @param pending       signals pending for this thread ({@code SigPnd})
 * @param sharedPending signals pending for the whole process ({@code ShdPnd})
 * @param blocked       signals blocked by this thread's mask ({@code SigBlk})
 * @param ignored       signals whose disposition is "ignore" ({@code SigIgn}; under {@code nohup}, HUP)
 * @param caught        signals with a handler installed ({@code SigCgt})
 */
public record SignalMasks(SignalSet pending, SignalSet sharedPending, SignalSet blocked, SignalSet ignored,
                          SignalSet caught) {
    /** Checks that no component is null. */
    public SignalMasks {
        Objects.requireNonNull(pending, "pending");
        Objects.requireNonNull(sharedPending, "sharedPending");
        Objects.requireNonNull(blocked, "blocked");
        Objects.requireNonNull(ignored, "ignored");
        Objects.requireNonNull(caught, "caught");
    }

    /** {@return whether a hang-up leaves the task alive: HUP is ignored (as under {@code nohup}) or caught} */
    public boolean survivesHangup() {
        return ignored.contains(Signal.HUP) || caught.contains(Signal.HUP);
    }

    /** {@return whether HUP is ignored, as {@code nohup} arranges} */
    public boolean ignoresHangup() {
        return ignored.contains(Signal.HUP);
    }

    /** {@return whether a handler is installed for TERM, so that TERM asks rather than ends} */
    public boolean handlesTerm() {
        return caught.contains(Signal.TERM);
    }

    /** {@return whether TERM is blocked by this thread (it stays pending until unblocked)} */
    public boolean blocksTerm() {
        return blocked.contains(Signal.TERM);
    }
}
