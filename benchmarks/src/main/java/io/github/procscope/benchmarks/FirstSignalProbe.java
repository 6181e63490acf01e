package io.github.procscope.benchmarks;

import io.github.procscope.api.Procscope;
import io.github.procscope.api.core.ProcessKey;
import io.github.procscope.api.process.ProcessTable;
import io.github.procscope.api.signals.SendResult;
import io.github.procscope.api.signals.Signal;
import io.github.procscope.api.signals.Signals;

/**
 * The first {@code Procscope.system().signals()} of a fresh JVM, timed: run once per JVM by {@code benchmarks/run.sh}
 * (a measured harness, since the cost is a one-time one that JMH's warm-up would hide). Prints
 * {@code system_ns first_send_ns system_cpu_ns first_send_cpu_ns} on one line: the call itself (binding the C
 * library through the JVM's native back end), then the first {@code send} of signal 0-like {@code CONT} to a
 * child it started; first as wall time, then as the calling thread's CPU time, which a loaded machine inflates
 * far less (work done on other threads, such as the FFM back end's linking on its daemon thread, is not in
 * it: a send that waits for that thread shows it as wall time only).
 */
public final class FirstSignalProbe {
    private FirstSignalProbe() {
    }

    /**
     * @param args none
     * @throws Exception if the child cannot be started
     */
    public static void main(String[] args) throws Exception {
        Process child = new ProcessBuilder("sleep", "30").start();
        try {
            ProcessTable table = Procscope.system().processes();
            ProcessKey key = table.key(child.pid());
            java.lang.management.ThreadMXBean threads = java.lang.management.ManagementFactory.getThreadMXBean();
            long c0 = threads.getCurrentThreadCpuTime();
            long t0 = System.nanoTime();
            Signals signals = Procscope.system().signals();
            long t1 = System.nanoTime();
            long c1 = threads.getCurrentThreadCpuTime();
            SendResult r = signals.send(key, Signal.CONT);
            long t2 = System.nanoTime();
            long c2 = threads.getCurrentThreadCpuTime();
            if (!r.delivered()) {
                throw new IllegalStateException("CONT was not delivered: " + r.explanation());
            }
            System.out.println((t1 - t0) + " " + (t2 - t1) + " " + (c1 - c0) + " " + (c2 - c1));
        } finally {
            child.destroyForcibly();
            child.waitFor();
        }
    }
}
