package io.github.procscope.api.events;

import io.github.procscope.api.core.ProcessKey;

import java.time.Duration;
import java.util.concurrent.Flow;

/**
 * Subscribes to the FORK, EXEC, RENAME and EXIT of every process. The source is the kernel's process connector where
 * the caller may use it (root, or {@code CAP_NET_ADMIN} in the initial namespaces), else snapshot diffing every
 * {@code interval}; {@link EventSubscription#source()} and {@link EventSubscription#fallbackReason()} say which
 * and why. A caller that watches one tree (a job) may also have {@link EventSource#PIDFD}
 * ({@link #subscribeTree}), and a caller that wants back-pressure a {@link Flow.Publisher} ({@link #publisher}).
 */
public interface ProcessEvents {
    /**
     * {@return the subscription}
     *
     * @param listener receives the events on a delivery thread
     * @param interval the snapshot interval if snapshot diffing must be used (at least 10 ms)
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

    /**
     * Subscribes to the events of one process and its descendants (those it forks while watched too): best
     * source first, {@link EventSource#NETLINK} (filtered to the tree), then {@link EventSource#PIDFD}, then
     * {@link EventSource#SNAPSHOT_DIFF}; {@link EventSubscription#fallbackReason()} says why a better one was not
     * used.
     *
     * @param root     the tree's first process
     * @param listener receives the tree's events
     * @param interval how often new members are looked for (PIDFD), or the snapshot interval (SNAPSHOT_DIFF)
     * @return the subscription
     * @throws io.github.procscope.api.core.NoSuchProcessException if the root is not running (or its pid was reused)
     */
    EventSubscription subscribeTree(ProcessKey root, ProcessEventListener listener, Duration interval);

    /**
     * As {@link #subscribeTree(ProcessKey, ProcessEventListener, Duration)}, with the source chosen by the caller.
     *
     * @param root     the tree's first process
     * @param listener receives the tree's events
     * @param interval as there
     * @param source   the source to use
     * @return the subscription
     * @throws EventsUnavailableException if that source cannot be used here, saying why
     * @throws io.github.procscope.api.core.NoSuchProcessException if the root is not running (or its pid was reused)
     */
    EventSubscription subscribeTree(ProcessKey root, ProcessEventListener listener, Duration interval,
                                    EventSource source);

    /**
     * Every process's events as a {@link Flow.Publisher}: each subscriber gets its own subscription (with the
     * source {@link #subscribe(ProcessEventListener, Duration)} would choose), an {@link EventFlowSubscription},
     * and receives events in order, as many as it requested; what arrives beyond its demand waits in a buffer of
     * {@code buffer} events, and is dropped and counted when that is full. {@code onComplete} is never called;
     * {@code onError} when the subscription cannot start or a request is not positive.
     *
     * @param interval the snapshot interval if snapshot diffing must be used (at least 10 ms)
     * @param buffer   how many events may wait for demand (1 to 1,048,576)
     * @return the publisher
     */
    Flow.Publisher<ProcessEvent> publisher(Duration interval, int buffer);
}
