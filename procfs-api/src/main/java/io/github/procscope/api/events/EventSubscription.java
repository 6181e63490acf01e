package io.github.procscope.api.events;

import java.util.Optional;

/** A live subscription to process events; close it to stop the reader and delivery threads. */
public interface EventSubscription extends AutoCloseable {
    /** {@return where the events come from} */
    EventSource source();

    /** {@return why a better source than {@link #source()} is not used; empty for {@link EventSource#NETLINK}} */
    Optional<String> fallbackReason();

    /** {@return events dropped because the listener did not keep up (the queue between reader and listener was full)} */
    long dropped();

    /**
     * {@return losses: kernel buffer overruns ({@link EventSource#NETLINK}: events lost before they were
     * read, each followed by a resynchronising snapshot), or members of a watched tree that could not be
     * given a pidfd because this process had no file descriptor left ({@link EventSource#PIDFD})}
     */
    long lost();

    /** Stops reading and delivering; idempotent. */
    @Override
    void close();
}
