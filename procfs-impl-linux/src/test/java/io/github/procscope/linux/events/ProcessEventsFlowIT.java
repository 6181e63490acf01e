package io.github.procscope.linux.events;

import io.github.procscope.api.events.EventFlowSubscription;
import io.github.procscope.api.events.EventType;
import io.github.procscope.api.events.ProcessEvent;
import io.github.procscope.linux.proc.LinuxProcfs;
import org.junit.jupiter.api.Test;

import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Flow;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The Flow.Publisher's back-pressure: a slow subscriber asking for few events has the rest dropped and counted. */
class ProcessEventsFlowIT {
    /** A subscriber that asks for {@code first} events, then for one more each time {@link #more()} is called. */
    static final class Slow implements Flow.Subscriber<ProcessEvent> {
        final List<ProcessEvent> received = new CopyOnWriteArrayList<>();
        final AtomicReference<EventFlowSubscription> subscription = new AtomicReference<>();
        final CountDownLatch subscribed = new CountDownLatch(1);
        final AtomicReference<Throwable> error = new AtomicReference<>();
        private final long first;

        Slow(long first) {
            this.first = first;
        }

        @Override
        public void onSubscribe(Flow.Subscription s) {
            subscription.set((EventFlowSubscription) s);
            subscribed.countDown();
            s.request(first);
        }

        @Override
        public void onNext(ProcessEvent item) {
            received.add(item);
        }

        @Override
        public void onError(Throwable t) {
            error.set(t);
        }

        @Override
        public void onComplete() {
            throw new AssertionError("the event stream does not complete");
        }
    }

    private static void burst(int n) throws Exception {
        Process p = new ProcessBuilder("sh", "-c", "i=0; while [ $i -lt " + n + " ]; do sleep 0.3 & i=$((i+1)); done;"
                + " wait").start();
        assertTrue(p.waitFor(60, TimeUnit.SECONDS));
    }

    @Test
    void aSlowSubscriberHasEventsDroppedAndCountedInOrderWithoutBlockingTheReader() throws Exception {
        Flow.Publisher<ProcessEvent> pub = LiveEvents.of(LinuxProcfs.at(Path.of("/proc"))).publisher(Duration.ofMillis(50), 8);
        Slow slow = new Slow(4);
        pub.subscribe(slow);
        assertTrue(slow.subscribed.await(10, TimeUnit.SECONDS));
        EventFlowSubscription sub = slow.subscription.get();
        try {
            burst(60);
            long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
            while (sub.dropped() == 0 && System.nanoTime() < deadline) {
                Thread.sleep(20);
            }
            assertTrue(sub.dropped() > 0, "events beyond the demand and the buffer were dropped: " + sub.dropped());
            assertEquals(4, slow.received.size(), "no more than requested");
            // no demand at all now: if the reader waited for the subscriber, nothing more would be counted
            long before = sub.dropped();
            burst(60);
            deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
            while (sub.dropped() < before + 60 && System.nanoTime() < deadline) {
                Thread.sleep(20);
            }
            assertTrue(sub.dropped() >= before + 60, "the reader kept reading and dropping: " + before + " then "
                    + sub.dropped() + " (source " + sub.source() + ")");
            assertEquals(4, slow.received.size());
            // asking again delivers the buffered events, in order
            for (int i = 0; i < 8; i++) {
                sub.request(1);
                Thread.sleep(30);
            }
            deadline = System.nanoTime() + Duration.ofSeconds(5).toNanos();
            while (slow.received.size() < 12 && System.nanoTime() < deadline) {
                Thread.sleep(10);
            }
            assertEquals(12, slow.received.size(), "the buffer held 8");
            inOrder(slow.received);
            assertEquals(null, slow.error.get());
        } finally {
            sub.cancel();
        }
        // after cancel, nothing more arrives
        int n = slow.received.size();
        burst(10);
        Thread.sleep(300);
        assertEquals(n, slow.received.size());
    }

    /** Times never go back, and no process ends before it was forked. */
    static void inOrder(List<ProcessEvent> events) {
        Map<Long, EventType> last = new HashMap<>();
        ProcessEvent prev = null;
        for (ProcessEvent e : events) {
            if (prev != null) {
                assertFalse(e.time().isBefore(prev.time()), prev + " then " + e);
            }
            EventType was = last.put(e.pid(), e.type());
            if (e.type() == EventType.FORK) {
                assertTrue(was == null || was == EventType.EXIT, "a FORK after " + was + ": " + e);
            }
            prev = e;
        }
    }

    @Test
    void aRequestThatIsNotPositiveEndsWithAnError() throws Exception {
        Slow s = new Slow(1);
        LiveEvents.of(LinuxProcfs.at(Path.of("/proc"))).publisher(Duration.ofMillis(50), 4).subscribe(s);
        assertTrue(s.subscribed.await(10, TimeUnit.SECONDS));
        s.subscription.get().request(0);
        assertTrue(s.error.get() instanceof IllegalArgumentException, String.valueOf(s.error.get()));
        s.subscription.get().close();
    }

    @Test
    void badArgumentsAreRefused() {
        LinuxProcessEvents ev = LiveEvents.of(LinuxProcfs.at(Path.of("/proc")));
        assertThrows(IllegalArgumentException.class, () -> ev.publisher(Duration.ofMillis(50), 0));
        assertThrows(IllegalArgumentException.class, () -> ev.publisher(Duration.ofMillis(1), 4));
        assertThrows(NullPointerException.class, () -> ev.publisher(Duration.ofMillis(50), 4).subscribe(null));
    }
}
