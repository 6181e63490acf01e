package io.github.procscope.linux.signals;

import io.github.procscope.api.Procscope;
import io.github.procscope.api.core.ProcessKey;
import io.github.procscope.api.process.ProcessTable;
import io.github.procscope.api.signals.PreemptionGuard;
import io.github.procscope.api.signals.PreemptionGuardOptions;
import io.github.procscope.api.signals.Signal;
import io.github.procscope.api.signals.Signals;
import io.github.procscope.api.signals.StopOptions;
import io.github.procscope.linux.proc.LinuxProcfs;

import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * A child JVM, started in a session of its own, that tries every forbidden target with signals its own
 * guard would record (TERM, WINCH; for -1, only WINCH, whose default is to be ignored, so that a broken
 * refusal would do no harm elsewhere). Prints "refused NAME: message" or "SENT NAME", then, after a
 * pause, "arrivals [...]": what actually reached this JVM.
 */
public final class RefusalProbe {
    private RefusalProbe() {
    }

    public static void main(String[] args) throws Exception {
        PreemptionGuard guard = Procscope.system().preemptionGuard(PreemptionGuardOptions.defaults().withSignals(Signal.TERM, Signal.WINCH));
        if (!guard.refused().isEmpty()) {
            System.out.println("guard refused " + guard.refused());
        }
        Signals signals = Procscope.system().signals();
        ProcessTable table = LinuxProcfs.at(Path.of("/proc"));
        long self = ProcessHandle.current().pid();
        ProcessKey selfKey = table.key(self);
        long parent = table.process(self).ppid();
        long ownGroup = table.process(self).pgid();
        Map<String, Runnable> attempts = new LinkedHashMap<>();
        attempts.put("key pid 0", () -> signals.send(new ProcessKey(0, selfKey.startTimeTicks()), Signal.TERM));
        attempts.put("key pid -1", () -> signals.send(new ProcessKey(-1, 0), Signal.WINCH));
        attempts.put("key pid MIN_VALUE", () -> signals.send(new ProcessKey(Integer.MIN_VALUE, 0), Signal.WINCH));
        attempts.put("group 0", () -> signals.sendToGroup(0, Signal.TERM));
        attempts.put("group -1", () -> signals.sendToGroup(-1, Signal.WINCH));
        attempts.put("group 1", () -> signals.sendToGroup(1, Signal.WINCH));
        attempts.put("group MIN_VALUE", () -> signals.sendToGroup(Integer.MIN_VALUE, Signal.WINCH));
        attempts.put("own group", () -> signals.sendToGroup(ownGroup, Signal.TERM));
        attempts.put("own pid", () -> signals.send(selfKey, Signal.TERM));
        attempts.put("stop own pid", () -> signals.stop(selfKey, StopOptions.defaults()));
        attempts.put("stop own group", () -> signals.stopGroup(ownGroup, StopOptions.defaults()));
        attempts.put("stop group 0", () -> signals.stopGroup(0, StopOptions.defaults()));
        attempts.put("stop tree of parent", () -> signals.stopTree(table.key(parent),
                StopOptions.defaults().withGracePeriod(Duration.ofMillis(100))));
        // The shell that started this JVM, and the JVM that started the shell: ancestors and their groups.
        // TERM to the shell would end it before it prints "probe-done"; WINCH is harmless elsewhere.
        long grandparent = table.process(parent).ppid();
        long grandparentGroup = table.process(grandparent).pgid();
        attempts.put("parent", () -> signals.send(table.key(parent), Signal.TERM));
        attempts.put("stop parent", () -> signals.stop(table.key(parent), StopOptions.defaults()));
        attempts.put("stop exact parent", () -> signals.stop(signals.key(parent), StopOptions.defaults()));
        attempts.put("grandparent", () -> signals.send(table.key(grandparent), Signal.WINCH));
        attempts.put("grandparent group", () -> signals.sendToGroup(grandparentGroup, Signal.WINCH));
        attempts.put("stop grandparent group", () -> signals.stopGroup(grandparentGroup, StopOptions.defaults()));
        // A kernel thread (kthreadd where the machine shows it): stopped, nothing is sent.
        table.snapshot().processes().stream().filter(io.github.procscope.api.process.ProcessInfo::isKernelThread)
                .findFirst().ifPresentOrElse(k -> {
                    attempts.put("stop kernel thread", () -> signals.stop(k.key(), StopOptions.defaults()));
                    attempts.put("stop tree of kernel thread", () -> signals.stopTree(k.key(), StopOptions.defaults()));
                    attempts.put("kernel thread", () -> signals.send(k.key(), Signal.TERM));
                }, () -> System.out.println("no kernel thread visible"));
        for (Map.Entry<String, Runnable> a : attempts.entrySet()) {
            try {
                a.getValue().run();
                System.out.println("SENT " + a.getKey());
            } catch (IllegalArgumentException e) {
                System.out.println("refused " + a.getKey() + ": " + e.getMessage());
            }
        }
        // With the explicit option, this JVM may signal itself; the guard sees it.
        System.out.println("allowed self: " + signals.allowingSelf().send(selfKey, Signal.WINCH).outcome());
        guard.awaitStop(Duration.ofSeconds(60));
        Thread.sleep(700); // time for anything else that was sent to arrive too
        System.out.println("arrivals " + guard.requests().stream().map(r -> r.signal().name()).toList());
        System.out.flush();
        guard.close();
    }
}
