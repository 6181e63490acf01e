package io.github.procscope.benchmarks;

import io.github.procscope.api.Procscope;
import io.github.procscope.api.events.EventSubscription;
import io.github.procscope.api.events.EventType;
import io.github.procscope.api.events.ProcessEvent;
import io.github.procscope.api.events.ProcessEventListener;
import org.openjdk.jmh.annotations.AuxCounters;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

import java.io.InputStream;
import java.io.OutputStream;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Process events: the time from asking a helper process to fork until the subscription's listener has the
 * child's FORK ({@link #forkToDelivery}), against the same round trip to the helper with no events, which
 * the helper answers once it has forked ({@link #forkRoundTrip}): the difference is what delivery adds.
 * {@link #thousandForksPerSecond} has the helper fork 2,000 children at 1,000 per second and counts what the
 * listener missed, and the CPU its subscription's threads used, as a share of one core.
 * The source is the one a default subscription gets (the process connector, for root on the jnr back end).
 */
@State(Scope.Benchmark)
@Fork(1)
@Warmup(iterations = 1, time = 1)
@Measurement(iterations = 3, time = 2)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
public class EventLatencyBenchmark {
    private Process helper;
    private OutputStream toHelper;
    private InputStream fromHelper;
    private EventSubscription subscription;
    private final AtomicLong forksSeen = new AtomicLong();

    /** Starts the helper and subscribes, counting the FORKs whose parent is the helper. */
    @Setup(Level.Trial)
    public void setUp() throws Exception {
        helper = new ProcessBuilder(NativeParts.require("forker").toString()).start();
        toHelper = helper.getOutputStream();
        fromHelper = helper.getInputStream();
        long parent = helper.pid();
        ProcessEventListener l = e -> {
            if (e.type() == EventType.FORK && e.ppid().orElse(-1) == parent) {
                forksSeen.incrementAndGet();
            }
        };
        subscription = Procscope.system().events().subscribe(l, Duration.ofMillis(50));
        System.err.println("events source: " + subscription.source()
                + subscription.fallbackReason().map(r -> " (" + r + ")").orElse(""));
    }

    /** Ends the subscription and the helper (end of its input, then by its pid). */
    @TearDown(Level.Trial)
    public void tearDown() throws Exception {
        subscription.close();
        toHelper.close();
        if (!helper.waitFor(5, TimeUnit.SECONDS)) {
            helper.destroyForcibly();
            helper.waitFor();
        }
    }

    private void ask(char cmd) throws Exception {
        toHelper.write(cmd);
        toHelper.flush();
    }

    /** @return the FORK count the listener reached: one more than before */
    @Benchmark
    @BenchmarkMode(Mode.SampleTime)
    public long forkToDelivery() throws Exception {
        long before = forksSeen.get();
        ask('f');
        long deadline = System.nanoTime() + 5_000_000_000L;
        while (forksSeen.get() == before) {
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException("no FORK event within 5 s (source " + subscription.source() + ")");
            }
            Thread.onSpinWait();
        }
        return forksSeen.get();
    }

    /** @return the helper's answer, sent once it has forked */
    @Benchmark
    @BenchmarkMode(Mode.SampleTime)
    public int forkRoundTrip() throws Exception {
        ask('r');
        return fromHelper.read();
    }

    /** What one burst measured, reported by JMH next to its time. */
    @State(Scope.Thread)
    @AuxCounters(AuxCounters.Type.EVENTS)
    public static class Burst {
        /** FORKs of the burst the listener did not get (and the subscription's drops and losses). */
        public long missed;
        /** The subscription's threads' CPU time during the burst, in percent of one core. */
        public double listenerCpuPercent;
        /** Events dropped or lost by the subscription (counted by it). */
        public long droppedOrLost;
    }

    /** @return the FORKs seen */
    @Benchmark
    @BenchmarkMode(Mode.SingleShotTime)
    @Warmup(iterations = 1)
    @Measurement(iterations = 3)
    @OutputTimeUnit(TimeUnit.MILLISECONDS)
    public long thousandForksPerSecond(Burst b) throws Exception {
        ThreadMXBean mx = ManagementFactory.getThreadMXBean();
        long cpu0 = eventsCpu(mx);
        long seen0 = forksSeen.get();
        long dl0 = subscription.dropped() + subscription.lost();
        long t0 = System.nanoTime();
        ask('b');
        if (fromHelper.read() != 'b') {
            throw new IllegalStateException("the helper ended");
        }
        long deadline = System.nanoTime() + 2_000_000_000L;
        while (forksSeen.get() - seen0 < 2000 && System.nanoTime() < deadline) {
            Thread.sleep(1);
        }
        long wall = System.nanoTime() - t0;
        long seen = forksSeen.get() - seen0;
        b.missed += 2000 - seen;
        b.listenerCpuPercent = 100.0 * (eventsCpu(mx) - cpu0) / wall;
        b.droppedOrLost += subscription.dropped() + subscription.lost() - dl0;
        return seen;
    }

    /** @return the CPU time of the subscription's reader and delivery threads, in nanoseconds */
    private static long eventsCpu(ThreadMXBean mx) {
        long sum = 0;
        for (Thread t : Thread.getAllStackTraces().keySet()) {
            if (t.getName().startsWith("procscope-events-")) {
                long c = mx.getThreadCpuTime(t.getId());
                if (c > 0) {
                    sum += c;
                }
            }
        }
        return sum;
    }
}
