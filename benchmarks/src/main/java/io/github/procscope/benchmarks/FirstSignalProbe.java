package io.github.procscope.benchmarks;

import io.github.procscope.api.ProcessKey;
import io.github.procscope.api.ProcessTable;
import io.github.procscope.api.signals.Signal;
import io.github.procscope.api.signals.SendResult;
import io.github.procscope.api.signals.Signals;

/**
 * The first {@code Signals.system()} of a fresh JVM, timed: run once per JVM by {@code benchmarks/run.sh}
 * (a measured harness, since the cost is a one-time one that JMH's warm-up would hide). Prints
 * {@code system_ns first_send_ns} on one line: the call itself (binding the C library through the JVM's
 * native back end), then the first {@code send} of signal 0-like {@code CONT} to a child it started.
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
            ProcessTable table = ProcessTable.system();
            ProcessKey key = table.key(child.pid());
            long t0 = System.nanoTime();
            Signals signals = Signals.system();
            long t1 = System.nanoTime();
            SendResult r = signals.send(key, Signal.CONT);
            long t2 = System.nanoTime();
            if (!r.delivered()) {
                throw new IllegalStateException("CONT was not delivered: " + r.explanation());
            }
            System.out.println((t1 - t0) + " " + (t2 - t1));
        } finally {
            child.destroyForcibly();
            child.waitFor();
        }
    }
}
