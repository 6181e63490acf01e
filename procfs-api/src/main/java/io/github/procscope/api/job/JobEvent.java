package io.github.procscope.api.job;

import io.github.procscope.api.core.ProcessKey;
import io.github.procscope.api.signals.ExitStatus;

import java.time.Instant;
import java.util.Objects;
import java.util.Optional;

/**
 * A process of the job seen to start or to end, by the samples of the job's processes: {@code at} is the
 * sample that first saw the change, so it is late by up to one {@link JobSpec#sampleInterval()}, and a process
 * that lives and dies between two samples is not seen at all.
 *
 * @param kind    whether the process started or exited
 * @param process its identity
 * @param ppid    its parent's pid when it was seen
 * @param comm    its command name when it was seen
 * @param at      when the sample that saw it began
 * @param status  for {@link Kind#EXITED}, its exit status where the supervisor reaped it itself (the job's first
 *                process, and the job's orphans that came back to the supervisor); empty otherwise (its parent
 *                reaped it)
 */
public record JobEvent(Kind kind, ProcessKey process, long ppid, String comm, Instant at, Optional<ExitStatus> status) {
    /** What happened to the process. */
    public enum Kind {
        /** It was seen for the first time as a process of the job. */
        STARTED,
        /** It was seen ended: a zombie, or gone. */
        EXITED
    }

    /** Checks the components. */
    public JobEvent {
        Objects.requireNonNull(kind, "kind");
        Objects.requireNonNull(process, "process");
        if (ppid < 0) {
            throw new IllegalArgumentException("a parent pid is 0 or more, not " + ppid);
        }
        Objects.requireNonNull(comm, "comm");
        Objects.requireNonNull(at, "at");
        Objects.requireNonNull(status, "status");
        if (kind == Kind.STARTED && status.isPresent()) {
            throw new IllegalArgumentException("only an EXITED event carries an exit status");
        }
    }
}
