package io.github.procscope.linux;

import io.github.procscope.api.ProcessKey;
import io.github.procscope.api.ProcessTable;
import io.github.procscope.api.Signal;
import io.github.procscope.api.signals.PreemptionGuard;
import io.github.procscope.api.signals.Signals;
import io.github.procscope.api.signals.StopOptions;

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
        PreemptionGuard guard = PreemptionGuard.install(Signal.TERM, Signal.WINCH);
        if (!guard.refused().isEmpty()) {
            System.out.println("guard refused " + guard.refused());
        }
        Signals signals = Signals.system();
        ProcessTable table = LinuxProcfs.system();
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
