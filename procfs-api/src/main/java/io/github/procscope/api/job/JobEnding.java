package io.github.procscope.api.job;

import io.github.procscope.api.diagnose.OomKill;
import io.github.procscope.api.signals.ExitStatus;

import java.util.Objects;
import java.util.Optional;

/**
 * How a job ended, explained.
 *
 * @param status      the exact exit status of the job's first process ({@code waitid(2)})
 * @param cause       what ended it
 * @param explanation the ending in plain words, with what to look at next
 * @param oomKill     the kernel's report of the OOM kill, for {@link Cause#OOM_KILLED} when the kernel log
 *                    named a process of the job
 */
public record JobEnding(ExitStatus status, Cause cause, String explanation, Optional<OomKill> oomKill) {
    /** What ended a job. */
    public enum Cause {
        /** Its first process exited by itself. */
        EXITED,
        /** A signal killed its first process, and nothing says it was the OOM killer or a forwarded signal. */
        KILLED_BY_SIGNAL,
        /** The kernel's OOM killer ended a process of the job (its log named it). */
        OOM_KILLED,
        /** A signal was forwarded to it (a scheduler's preemption) before it ended. */
        PREEMPTED
    }

    /** Checks the components. */
    public JobEnding {
        Objects.requireNonNull(status, "status");
        Objects.requireNonNull(cause, "cause");
        Objects.requireNonNull(explanation, "explanation");
        Objects.requireNonNull(oomKill, "oomKill");
    }
}
