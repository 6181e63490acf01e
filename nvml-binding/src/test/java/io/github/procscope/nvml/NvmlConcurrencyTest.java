package io.github.procscope.nvml;

import io.github.procscope.api.gpu.GpuDevice;
import io.github.procscope.api.gpu.GpuSample;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static io.github.procscope.nvml.NvmlDouble.COMPUTE;
import static io.github.procscope.nvml.NvmlDouble.GIB;
import static io.github.procscope.nvml.NvmlDouble.NO_INSTANCE;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Reference-counted init and shutdown, and closing while other threads are calling. */
class NvmlConcurrencyTest {

    @AfterEach
    void nothingLeftInitialized() {
        assertEquals(0, NvmlDouble.control(NvmlDouble.FULL).ndInitCount());
    }

    @Test
    void manyThreadsSamplingWhileAnotherClosesEndCleanly() throws Exception {
        NvmlDouble.Control c = NvmlDouble.reset(NvmlDouble.FULL);
        for (int i = 0; i < 30; i++) {
            NvmlDouble.ok(c.ndAddProcess(i % 2, COMPUTE, 100 + i, GIB, NO_INSTANCE, NO_INSTANCE));
        }
        NvmlGpus gpus = NvmlDouble.open(NvmlDouble.FULL);
        List<GpuDevice> devices = gpus.devices();
        int threads = 12;
        CountDownLatch started = new CountDownLatch(threads);
        AtomicInteger calls = new AtomicInteger();
        ConcurrentLinkedQueue<Throwable> unexpected = new ConcurrentLinkedQueue<>();
        AtomicInteger endedByClose = new AtomicInteger();
        List<Thread> workers = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
            int id = t;
            Thread w = new Thread(() -> {
                started.countDown();
                GpuDevice d = devices.get(id % devices.size());
                try {
                    while (true) {
                        switch (id % 4) {
                            case 0, 1 -> {
                                GpuSample s = d.sample();
                                assertTrue(s.memory().isPresent());
                            }
                            case 2 -> assertEquals(15, d.processes().processes().size());
                            default -> d.modes();
                        }
                        calls.incrementAndGet();
                    }
                } catch (IllegalStateException closed) {
                    assertTrue(closed.getMessage().contains("is closed"), closed.getMessage());
                    endedByClose.incrementAndGet();
                } catch (Throwable other) {
                    unexpected.add(other);
                }
            }, "sampler-" + t);
            workers.add(w);
            w.start();
        }
        assertTrue(started.await(60, TimeUnit.SECONDS));
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (calls.get() < threads * 20 && System.nanoTime() < deadline) {
            Thread.sleep(5);
        }
        gpus.close();
        assertEquals(0, c.ndInitCount(), "NVML is shut down once close returns");
        for (Thread w : workers) {
            w.join(TimeUnit.SECONDS.toMillis(60));
            assertTrue(!w.isAlive(), w.getName() + " still running");
        }
        assertTrue(unexpected.isEmpty(), "unexpected failures: " + unexpected);
        assertEquals(threads, endedByClose.get(), "every thread ended with the closed-inventory error");
        assertTrue(calls.get() >= threads * 20, "the threads called NVML before the close: " + calls.get());
        assertEquals(1, c.ndCallCount("nvmlShutdown"), "one shutdown");
        assertEquals(1, c.ndCallCount("nvmlInit_v2"));
        gpus.close();
        assertEquals(1, c.ndCallCount("nvmlShutdown"), "close is idempotent");
    }

    @Test
    void everyMethodOfAClosedInventoryRefuses() {
        NvmlDouble.reset(NvmlDouble.FULL);
        NvmlGpus gpus = NvmlDouble.open(NvmlDouble.FULL);
        GpuDevice d = gpus.device(0);
        gpus.close();
        assertTrue(gpus.isClosed());
        assertThrows(IllegalStateException.class, gpus::devices);
        assertThrows(IllegalStateException.class, gpus::driverVersion);
        assertThrows(IllegalStateException.class, d::sample);
        assertThrows(IllegalStateException.class, d::processes);
        assertThrows(IllegalStateException.class, d::modes);
        assertThrows(IllegalStateException.class, d::migDevices);
        assertThrows(IllegalStateException.class, () -> d.processUtilization(Instant.EPOCH));
        assertThrows(IllegalStateException.class, () -> d.gpmMetrics(Duration.ofMillis(100)));
        assertEquals("NVIDIA H100 80GB HBM3", d.name(), "the identity read at open stays readable");
    }

    @Test
    void twoOpenInventoriesShareOneInitialization() {
        NvmlDouble.Control c = NvmlDouble.reset(NvmlDouble.FULL);
        NvmlGpus first = NvmlDouble.open(NvmlDouble.FULL);
        NvmlGpus second = NvmlDouble.open(NvmlDouble.FULL);
        assertEquals(1, c.ndInitCount());
        first.close();
        assertEquals(1, c.ndInitCount(), "the second still holds NVML");
        assertTrue(second.device(1).sample().memory().isPresent());
        second.close();
        assertEquals(0, c.ndInitCount());
        try (NvmlGpus third = NvmlDouble.open(NvmlDouble.FULL)) {
            assertEquals(1, c.ndInitCount(), "opening again initializes again");
            assertEquals(2, third.devices().size());
        }
    }

    @Test
    void closingCutsAGpmMeasurementShortAndFreesItsSamples() throws Exception {
        NvmlDouble.Control c = NvmlDouble.reset(NvmlDouble.FULL);
        NvmlGpus gpus = NvmlDouble.open(NvmlDouble.FULL);
        GpuDevice d = gpus.device(0);
        ConcurrentLinkedQueue<Object> outcome = new ConcurrentLinkedQueue<>();
        Thread measuring = new Thread(() -> {
            try {
                outcome.add(d.gpmMetrics(Duration.ofMinutes(10)));
            } catch (Throwable t) {
                outcome.add(t);
            }
        });
        measuring.start();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (c.ndCallCount("nvmlGpmSampleGet") < 1 && System.nanoTime() < deadline) {
            Thread.sleep(5);
        }
        assertEquals(1, c.ndCallCount("nvmlGpmSampleGet"), "the first sample was taken");
        long t0 = System.nanoTime();
        gpus.close();
        measuring.join(TimeUnit.SECONDS.toMillis(60));
        assertTrue(TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - t0) < 60, "close did not wait ten minutes");
        Object result = outcome.poll();
        assertTrue(result instanceof IllegalStateException, String.valueOf(result));
        assertEquals(0, c.ndGpmOutstanding(), "both GPM samples were freed before NVML shut down");
        assertEquals(0, c.ndInitCount());
        assertEquals(Optional.empty(), Optional.ofNullable(outcome.poll()));
    }
}
