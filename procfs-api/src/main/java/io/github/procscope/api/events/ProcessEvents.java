package io.github.procscope.api.events;

import java.time.Duration;

/**
 * Subscribes to the FORK, EXEC and EXIT of every process. The source is the kernel's process connector where
 * the caller may use it (root, or {@code CAP_NET_ADMIN} in the initial namespaces), else snapshot diffing every
 * {@code interval}; {@link EventSubscription#source()} and {@link EventSubscription#fallbackReason()} say which
 * and why.
 */
public interface ProcessEvents {
    /**
     * @param listener receives the events on a delivery thread
     * @param interval the snapshot interval if snapshot diffing must be used (at least 10 ms)
     * @return the subscription
     */
    EventSubscription subscribe(ProcessEventListener listener, Duration interval);

    /**
     * As {@link #subscribe(ProcessEventListener, Duration)}, with the source chosen by the caller (tests, and
     * callers that want the same source everywhere).
     *
     * @param listener receives the events
     * @param interval the snapshot interval for snapshot diffing
     * @param source   the source to use
     * @return the subscription
     * @throws EventsUnavailableException if that source cannot be used here, saying why
     */
    EventSubscription subscribe(ProcessEventListener listener, Duration interval, EventSource source);
}
