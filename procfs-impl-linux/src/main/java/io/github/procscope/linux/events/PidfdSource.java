package io.github.procscope.linux.events;

import io.github.procscope.api.events.EventsUnavailableException;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * Pidfds as a source, for a watched tree ({@link PidfdWatch}): polls the members' pidfds, scans for new members
 * every interval, and puts the finished events in the queue; members it could not open a pidfd for are counted
 * lost. Closes the watch when it ends.
 */
final class PidfdSource implements Runnable {
    private final PidfdWatch pidfds;
    private final Duration interval;
    private final EventQueue queue;
    private final int receiveTimeoutMs;

    PidfdSource(PidfdWatch pidfds, Duration interval, EventQueue queue, int receiveTimeoutMs) {
        this.pidfds = pidfds;
        this.interval = interval;
        this.queue = queue;
        this.receiveTimeoutMs = receiveTimeoutMs;
    }

    @Override
    public void run() {
        List<PidfdWatch.Found> found = new ArrayList<>();
        long every = interval.compareTo(Duration.ofDays(1)) > 0 ? Duration.ofDays(1).toNanos() : interval.toNanos();
        long unwatched = 0;
        long nextScan = System.nanoTime() + every;
        try {
            while (!queue.closed()) {
                found.clear();
                long now = System.nanoTime();
                if (now - nextScan >= 0) {
                    pidfds.scan(found);
                    nextScan = now + every;
                }
                int wait = (int) Math.max(0, Math.min(receiveTimeoutMs, (nextScan - now) / 1_000_000));
                try {
                    pidfds.poll(wait, found);
                } catch (EventsUnavailableException e) {
                    break;
                }
                for (PidfdWatch.Found f : found) {
                    queue.offer(EventItem.finished(f.event(), f.oomCounter()));
                }
                if (pidfds.unwatched() > unwatched) {
                    // members without a pidfd (no descriptors left): their events are lost
                    long more = pidfds.unwatched() - unwatched;
                    unwatched = pidfds.unwatched();
                    queue.offer(EventItem.loss(queue.countLost(more)));
                }
                if (Thread.currentThread().isInterrupted()) {
                    break;
                }
            }
        } finally {
            pidfds.close();
        }
    }
}
