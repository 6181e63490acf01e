package io.github.procscope.api.signals;


import java.util.Objects;

/**
 * What became of one attempt to send a signal. The normal outcomes of a live system (the process is
 * gone, belongs to someone else, or its pid was recycled) are values, not exceptions.
 *
 * @param target       the pid, or for a process group the group id
 * @param processGroup whether {@code target} is a process group id ({@code kill(-pgid, sig)})
 * @param signal       the signal
 * @param outcome      what happened
 * @param explanation  a sentence naming the target and the outcome, for logs and error messages
 */
public record SendResult(long target, boolean processGroup, Signal signal, Outcome outcome, String explanation) {

    /** What happened to a signal. */
    public enum Outcome {
        /** {@code kill(2)} accepted the signal. (Whether the process acts on it is its own affair.) */
        DELIVERED,
        /**
         * Nothing was sent: no such process (or group), or the process has exited and is a zombie
         * waiting for its parent to reap it, which no signal can change ({@code ESRCH}).
         */
        NO_SUCH_PROCESS,
        /**
         * Nothing was sent: the caller may not signal that process ({@code EPERM}: another user's
         * process, without {@code CAP_KILL}).
         */
        NOT_PERMITTED,
        /**
         * Nothing was sent: the pid now belongs to a process with another start time than the
         * {@link io.github.procscope.api.core.ProcessKey} named; the process meant has exited and its pid
         * was reused.
         */
        PID_REUSED
    }

    /** Checks that no component is null. */
    public SendResult {
        Objects.requireNonNull(signal, "signal");
        Objects.requireNonNull(outcome, "outcome");
        Objects.requireNonNull(explanation, "explanation");
    }

    /** {@return whether the signal was delivered} */
    public boolean delivered() {
        return outcome == Outcome.DELIVERED;
    }

    /** {@return the explanation} */
    @Override
    public String toString() {
        return explanation;
    }
}
