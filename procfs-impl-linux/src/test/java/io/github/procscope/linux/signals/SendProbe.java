package io.github.procscope.linux.signals;

import io.github.procscope.api.Procscope;
import io.github.procscope.api.core.ProcessKey;
import io.github.procscope.api.signals.Signal;
import io.github.procscope.api.signals.Signals;
import io.github.procscope.api.signals.StopOptions;
import io.github.procscope.api.signals.StopReport;

import java.time.Duration;

/**
 * A child JVM that sends a signal and tries a stop through {@code Procscope.system().signals()} and prints the
 * outcomes: "send OUTCOME: explanation" and "stop ENDING". Arguments: pid, start ticks, signal.
 * Also reports a failure to load the native library as "unavailable CLASS: message".
 */
public final class SendProbe {
    private SendProbe() {
    }

    public static void main(String[] args) {
        Signals signals;
        try {
            signals = Procscope.system().signals();
        } catch (RuntimeException e) {
            System.out.println("unavailable " + e.getClass().getSimpleName() + ": " + e.getMessage());
            return;
        }
        ProcessKey key = new ProcessKey(Long.parseLong(args[0]), Long.parseLong(args[1]));
        System.out.println("send " + signals.send(key, Signal.parse(args[2])).outcome() + ": "
                + signals.send(key, Signal.parse(args[2])).explanation());
        StopReport r = signals.stop(key, StopOptions.defaults().withGracePeriod(Duration.ofMillis(200))
                .withKillWait(Duration.ofMillis(200)));
        System.out.println("stop " + r.processes().get(0).ending() + " allGone=" + r.allGone());
        System.out.flush();
    }
}
