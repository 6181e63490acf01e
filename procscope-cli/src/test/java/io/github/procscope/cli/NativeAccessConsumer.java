package io.github.procscope.cli;

import io.github.procscope.api.Procscope;
import io.github.procscope.api.core.ProcessKey;
import io.github.procscope.api.gpu.Gpus;
import io.github.procscope.api.process.ProcessSnapshot;
import io.github.procscope.api.process.ProcessTable;
import io.github.procscope.api.signals.PreemptionGuard;
import io.github.procscope.api.signals.PreemptionGuardOptions;
import io.github.procscope.api.signals.Signal;
import io.github.procscope.api.signals.Signals;
import io.github.procscope.api.signals.StopOptions;
import io.github.procscope.api.signals.StopReport;

import java.time.Duration;

/**
 * A library consumer doing what the README shows: snapshots (the native reader loads in the background
 * after the first), a graceful stop of a child tree (pidfds, poll, kill), a preemption guard, and the GPUs
 * (NVML through JNA, the test double named by {@code procscope.nvml.library}). Prints {@code ok} at the end.
 */
public final class NativeAccessConsumer {
    private NativeAccessConsumer() {
    }

    public static void main(String[] args) throws Exception {
        ProcessTable table = Procscope.system().processes();
        ProcessSnapshot first = table.snapshot();
        Thread.sleep(1500); // the background loader of the native reader finishes, and may warn now
        ProcessSnapshot second = table.snapshot();
        if (first.processes().isEmpty() || second.processes().isEmpty()) {
            throw new AssertionError("empty snapshot");
        }
        Process child = new ProcessBuilder("sleep", "60").start();
        ProcessKey key = table.key(child.pid());
        StopReport report = Procscope.system().signals().stopTree(key, StopOptions.defaults().withGracePeriod(Duration.ofSeconds(5)));
        if (!report.allGone()) {
            throw new AssertionError("the child survived: " + report);
        }
        try (PreemptionGuard guard = Procscope.system().preemptionGuard(PreemptionGuardOptions.defaults().withSignals(Signal.TERM))) {
            if (guard.stopRequested()) {
                throw new AssertionError("no TERM was sent");
            }
        }
        try (Gpus gpus = Procscope.system().openGpus()) {
            if (gpus.devices().isEmpty()) {
                throw new AssertionError("the NVML double has GPUs");
            }
        }
        System.out.println("ok");
    }
}
