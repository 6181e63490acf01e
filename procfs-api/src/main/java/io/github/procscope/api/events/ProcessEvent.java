package io.github.procscope.api.events;

import io.github.procscope.api.core.ProcessKey;

import java.time.Instant;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.OptionalLong;

/**
 * One lifecycle event of one process.
 *
 * @param type       what happened
 * @param pid        the process
 * @param ppid       its parent: the forking process for FORK, the parent at exit for EXIT (from the kernel), the
 *                   parent as last read otherwise; empty when not known
 * @param key        the process's identity (pid and start time); empty when the process ended before its start
 *                   time could be read (a very short process) and no earlier event gave it
 * @param comm       the command name: for FORK the one the child got from its parent; for EXEC the new program's,
 *                   read as the event arrives; for RENAME the new name; for EXIT the last name the process had,
 *                   remembered from its FORK, EXEC and RENAME events or from the read of every process when the
 *                   subscription started (the source forgets it at the exit). Empty only when no read could see
 *                   it: a process that exec'd and was gone before its new name could be read (its old name is
 *                   never given in place of the new one)
 * @param time       when the event was received (NETLINK) or noticed (SNAPSHOT_DIFF)
 * @param exitCode   for an EXIT by {@code exit()}: the exit code (0-255); empty for other events, for an exit by a
 *                   signal, and where the source cannot know ({@link #exitStatusKnown()})
 * @param signal     for an EXIT by a signal: its number (15 for SIGTERM, 9 for SIGKILL); empty otherwise
 * @param coreDumped for an EXIT by a signal: whether a core dump was written
 * @param cause      why it ended, where more is known than the status ({@link ExitCause#OOM_KILLED})
 * @param evidence   how the cause is known (the kernel log's OOM record); present exactly when {@code cause} is
 * @param source     where the event came from
 * @param exitStatusKnown for an EXIT: whether its source knows how it ended; false for {@link EventSource#SNAPSHOT_DIFF}
 */
public record ProcessEvent(EventType type, long pid, OptionalLong ppid, Optional<ProcessKey> key, Optional<String> comm,
                           Instant time, OptionalInt exitCode, OptionalInt signal, boolean coreDumped,
                           Optional<ExitCause> cause, Optional<String> evidence, EventSource source,
                           boolean exitStatusKnown) {
    /**
     * Checks the components.
     *
     * @throws IllegalArgumentException if the pid is not positive, exit facts come with a FORK or EXEC, both an exit
     *                                  code and a signal are given, or a cause comes without evidence
     */
    public ProcessEvent {
        if (pid <= 0) {
            throw new IllegalArgumentException("pid must be positive: " + pid);
        }
        Objects.requireNonNull(type, "type");
        Objects.requireNonNull(ppid, "ppid");
        Objects.requireNonNull(key, "key");
        Objects.requireNonNull(comm, "comm");
        Objects.requireNonNull(time, "time");
        Objects.requireNonNull(exitCode, "exitCode");
        Objects.requireNonNull(signal, "signal");
        Objects.requireNonNull(cause, "cause");
        Objects.requireNonNull(evidence, "evidence");
        Objects.requireNonNull(source, "source");
        if (type != EventType.EXIT && (exitCode.isPresent() || signal.isPresent() || coreDumped || cause.isPresent())) {
            throw new IllegalArgumentException("exit facts come only with EXIT");
        }
        if (exitCode.isPresent() && signal.isPresent()) {
            throw new IllegalArgumentException("an exit has a code or a signal, not both");
        }
        if (cause.isPresent() != evidence.isPresent()) {
            throw new IllegalArgumentException("a cause comes with its evidence");
        }
        key.ifPresent(k -> {
            if (k.pid() != pid) {
                throw new IllegalArgumentException("key " + k + " is not pid " + pid);
            }
        });
    }

    /**
     * {@return this event with the cause and its evidence}
     *
     * @param c   what caused the exit
     * @param why the evidence, in words
     */
    public ProcessEvent withCause(ExitCause c, String why) {
        return new ProcessEvent(type, pid, ppid, key, comm, time, exitCode, signal, coreDumped, Optional.of(c),
                Optional.of(why), source, exitStatusKnown);
    }
}
