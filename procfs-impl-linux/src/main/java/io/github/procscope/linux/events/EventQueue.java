package io.github.procscope.linux.events;

import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The bounded queue between a subscription's source and its delivery thread. A source never waits: when the
 * queue is full the event is dropped and counted. Also holds what both sides count (dropped, lost) and the
 * subscription's end.
 */
final class EventQueue {
    private final BlockingQueue<EventItem> queue;
    private final AtomicLong dropped = new AtomicLong();
    private final AtomicLong lost = new AtomicLong();
    private volatile boolean closed;

    EventQueue(int capacity) {
        this.queue = new ArrayBlockingQueue<>(capacity);
    }

    /** Puts an item in, or counts it dropped when the queue is full. */
    void offer(EventItem item) {
        if (!queue.offer(item)) {
            dropped.incrementAndGet();
        }
    }

    /** @return the next item, or null after {@code millis} without one */
    EventItem poll(long millis) throws InterruptedException {
        return queue.poll(millis, TimeUnit.MILLISECONDS);
    }

    boolean isEmpty() {
        return queue.isEmpty();
    }

    /** Counts one event dropped after it left the queue (a listener that threw). */
    void countDropped() {
        dropped.incrementAndGet();
    }

    long dropped() {
        return dropped.get();
    }

    /** @return the events lost so far, {@code n} more counted */
    long countLost(long n) {
        return lost.addAndGet(n);
    }

    long lost() {
        return lost.get();
    }

    boolean closed() {
        return closed;
    }

    void close() {
        closed = true;
    }
}
