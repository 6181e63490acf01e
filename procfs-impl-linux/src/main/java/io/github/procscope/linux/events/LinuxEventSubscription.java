package io.github.procscope.linux.events;

import io.github.procscope.api.core.NoSuchProcessException;
import io.github.procscope.api.core.ProcessKey;
import io.github.procscope.api.events.EventSource;
import io.github.procscope.api.events.EventSubscription;
import io.github.procscope.api.process.ProcessInfo;

import java.util.Map;
import java.util.Optional;

/**
 * One subscription: its source on a reader thread ({@link NetlinkSource}, {@link PidfdSource} or
 * {@link SnapshotDiffSource}), the queue between them ({@link EventQueue}), and the delivery thread
 * ({@link EventDelivery}). The reader only receives and parses and never waits; the delivery thread completes each
 * event and calls the listener.
 */
final class LinuxEventSubscription implements EventSubscription {
    private final ProcessKey root;
    private final EventSource source;
    private final Optional<String> reason;
    private final EventQueue queue;
    private final EventDelivery delivery;
    private final Runnable read;
    private Thread readerThread;
    private Thread deliveryThread;

    /**
     * @param root     the watched tree's root, or null for every process
     * @param source   the source
     * @param reason   why this source rather than a better one, if so
     * @param queue    the queue between the source and the delivery
     * @param delivery the delivery
     * @param read     the source
     */
    LinuxEventSubscription(ProcessKey root, EventSource source, Optional<String> reason, EventQueue queue,
                           EventDelivery delivery, Runnable read) {
        this.root = root;
        this.source = source;
        this.reason = reason;
        this.queue = queue;
        this.delivery = delivery;
        this.read = read;
    }

    /**
     * Reads the processes that are there before the first event, so that exits of processes already running
     * carry their identity (not for pidfds, which read their own), then starts both threads.
     *
     * @throws NoSuchProcessException if a watched tree's root is not running
     */
    void begin() {
        if (source != EventSource.PIDFD) {
            Map<ProcessKey, ProcessInfo> all = delivery.resync();
            if (read instanceof SnapshotDiffSource diff) {
                diff.startFrom(all); // its first diff sees what changed since this read
            }
            if (root != null) {
                if (!all.containsKey(root.withoutInode())) {
                    throw new NoSuchProcessException(root.pid());
                }
                delivery.followTree(all.values());
            }
        }
        readerThread = new Thread(read, "procscope-events-reader");
        deliveryThread = new Thread(delivery, "procscope-events-delivery");
        readerThread.setDaemon(true);
        deliveryThread.setDaemon(true);
        readerThread.start();
        deliveryThread.start();
    }

    @Override
    public EventSource source() {
        return source;
    }

    @Override
    public Optional<String> fallbackReason() {
        return reason;
    }

    @Override
    public long dropped() {
        return queue.dropped();
    }

    @Override
    public long lost() {
        return queue.lost();
    }

    @Override
    public void close() {
        queue.close();
        if (readerThread != null) {
            readerThread.interrupt();
        }
        try {
            if (readerThread != null && readerThread != Thread.currentThread()) {
                readerThread.join(2_000);
            }
            if (deliveryThread != null && deliveryThread != Thread.currentThread()) {
                deliveryThread.join(2_000);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
