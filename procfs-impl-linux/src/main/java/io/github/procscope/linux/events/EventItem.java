package io.github.procscope.linux.events;

import io.github.procscope.api.events.ProcessEvent;
import io.github.procscope.linux.parse.ProcEventParser;

import java.nio.file.Path;
import java.time.Instant;
import java.util.Optional;

/**
 * What a source hands to the delivery thread: a raw event of the process connector, a finished one (with the OOM
 * counter of an exit's cgroup, when known), or a loss marker (neither, with the loss count).
 */
record EventItem(ProcEventParser.Raw raw, ProcessEvent diffed, Optional<Path> oomCounter, Instant time,
                 long lossCount) {
    /** @return a raw event of the process connector, received at {@code time} */
    static EventItem raw(ProcEventParser.Raw raw, Instant time) {
        return new EventItem(raw, null, Optional.empty(), time, 0);
    }

    /** @return a finished event, with the OOM counter of its cgroup where known */
    static EventItem finished(ProcessEvent event, Optional<Path> oomCounter) {
        return new EventItem(null, event, oomCounter, event.time(), 0);
    }

    /** @return a marker: {@code lossCount} events lost so far */
    static EventItem loss(long lossCount) {
        return new EventItem(null, null, Optional.empty(), Instant.now(), lossCount);
    }
}
