package io.github.procscope.api.job;

import io.github.procscope.api.core.ProcessKey;
import io.github.procscope.api.signals.Signal;

import java.util.List;
import java.util.Objects;

/**
 * A process of the job still alive when the job's first process had ended, and what ended it.
 *
 * @param process  its identity
 * @param comm     its command name
 * @param cmdline  its argument vector, as last read (empty if it could not be read)
 * @param endedBy  the last signal the supervisor sent it: TERM if it ended within the grace period, KILL
 *                 if it had to be killed
 */
public record Straggler(ProcessKey process, String comm, List<String> cmdline, Signal endedBy) {
    /** Checks and copies the components. */
    public Straggler {
        Objects.requireNonNull(process, "process");
        Objects.requireNonNull(comm, "comm");
        cmdline = List.copyOf(Objects.requireNonNull(cmdline, "cmdline"));
        Objects.requireNonNull(endedBy, "endedBy");
    }
}
