package io.github.procscope.linux.events;

import io.github.procscope.api.events.EventFlowSubscription;
import io.github.procscope.api.events.EventSource;
import io.github.procscope.api.events.EventSubscription;
import io.github.procscope.api.events.ProcessEvent;
import io.github.procscope.api.events.ProcessEventListener;

import java.util.ArrayDeque;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.Flow;
import java.util.function.Function;

/**
 * One subscriber of {@link LinuxProcessEvents#publisher}: the subscription's delivery thread puts each event in
 * a bounded buffer (dropping and counting when it is full, never waiting), and an emitter thread of its own
 * hands the buffer's events to the subscriber as its demand allows, in order. Thread-safe.
 */
final class EventPublisher implements EventFlowSubscription, ProcessEventListener {
    private final Flow.Subscriber<? super ProcessEvent> subscriber;
    private final int capacity;
    private final ArrayDeque<ProcessEvent> buffer = new ArrayDeque<>();
    private final Object lock = new Object();
    private long demand;
    private long dropped;
    private boolean cancelled;
    private volatile EventSubscription events;
    private Thread emitter;

    private EventPublisher(Flow.Subscriber<? super ProcessEvent> subscriber, int capacity) {
        this.subscriber = subscriber;
        this.capacity = capacity;
    }

    /**
     * Starts a subscription for {@code subscriber}: {@code onSubscribe} first, then events as requested; if the
     * events cannot be subscribed to, {@code onError} with the reason.
     */
    static void start(Flow.Subscriber<? super ProcessEvent> subscriber, int capacity,
                      Function<ProcessEventListener, EventSubscription> subscribe) {
        Objects.requireNonNull(subscriber, "subscriber");
        EventPublisher p = new EventPublisher(subscriber, capacity);
        EventSubscription s;
        try {
            s = subscribe.apply(p);
        } catch (RuntimeException e) {
            subscriber.onSubscribe(new Flow.Subscription() {
                @Override
                public void request(long n) {
                }

                @Override
                public void cancel() {
                }
            });
            subscriber.onError(e);
            return;
        }
        p.events = s;
        p.emitter = new Thread(p::emit, "procscope-events-publisher");
        p.emitter.setDaemon(true);
        subscriber.onSubscribe(p);
        p.emitter.start();
    }

    /** From the subscription's delivery thread: buffer the event, or drop it when the buffer is full. */
    @Override
    public void onEvent(ProcessEvent event) {
        synchronized (lock) {
            if (cancelled) {
                return;
            }
            if (buffer.size() >= capacity) {
                dropped++;
                return;
            }
            buffer.add(event);
            lock.notifyAll();
        }
    }

    private void emit() {
        while (true) {
            ProcessEvent next;
            synchronized (lock) {
                while (!cancelled && (demand == 0 || buffer.isEmpty())) {
                    try {
                        lock.wait();
                    } catch (InterruptedException e) {
                        return;
                    }
                }
                if (cancelled) {
                    return;
                }
                next = buffer.poll();
                demand--;
            }
            try {
                subscriber.onNext(next);
            } catch (RuntimeException e) {
                cancel(); // a subscriber that throws has cancelled (Reactive Streams rule 2.13)
                return;
            }
        }
    }

    @Override
    public void request(long n) {
        if (n <= 0) {
            cancel();
            subscriber.onError(new IllegalArgumentException("a request must be positive, not " + n
                    + " (Reactive Streams rule 3.9)"));
            return;
        }
        synchronized (lock) {
            demand = demand + n < 0 ? Long.MAX_VALUE : demand + n;
            lock.notifyAll();
        }
    }

    @Override
    public void cancel() {
        synchronized (lock) {
            if (cancelled) {
                return;
            }
            cancelled = true;
            buffer.clear();
            lock.notifyAll();
        }
        EventSubscription s = events;
        if (s != null) {
            s.close();
        }
    }

    @Override
    public EventSource source() {
        return events.source();
    }

    @Override
    public Optional<String> fallbackReason() {
        return events.fallbackReason();
    }

    @Override
    public long dropped() {
        synchronized (lock) {
            return dropped + events.dropped();
        }
    }

    @Override
    public long lost() {
        return events.lost();
    }

    @Override
    public void close() {
        cancel();
    }
}
