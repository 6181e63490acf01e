package io.github.procscope.linux.signals;

import io.github.procscope.api.Procscope;
import io.github.procscope.api.core.ProcessKey;
import io.github.procscope.api.signals.PreemptionGuard;
import io.github.procscope.api.signals.PreemptionGuardOptions;
import io.github.procscope.api.signals.Signal;
import io.github.procscope.linux.proc.LinuxProcfs;
import io.github.procscope.testing.Spawned;
import org.junit.jupiter.api.Test;

import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The guard inside this JVM, with WINCH (ignored by default, so a stray one does no harm) standing in
 * for TERM; the TERM, nohup and -Xrs cases run in child JVMs ({@link PreemptionGuardChildIT}).
 */
class PreemptionGuardIT {
    private static final Duration TIMEOUT = Duration.ofSeconds(30);
    private final LinuxProcfs proc = LinuxProcfs.at(Path.of("/proc"));
    private final long self = ProcessHandle.current().pid();

    private boolean caught(Signal s) {
        return proc.status(self).signals().caught().contains(s);
    }

    @Test
    void aSignalIsRecordedAndFlaggedAndListenersHearOfIt() throws Exception {
        List<PreemptionGuard.StopRequest> heard = new CopyOnWriteArrayList<>();
        List<String> threads = new CopyOnWriteArrayList<>();
        Instant before = Instant.now();
        // A second WINCH follows below: it must not exit this JVM, as a repeat would by default.
        try (PreemptionGuard guard = Procscope.system().preemptionGuard(PreemptionGuardOptions.defaults()
                .withSignals(List.of(Signal.WINCH)).withListener(heard::add)
                .withExitOnSecondSignal(false))) {
            guard.addListener(r -> threads.add(Thread.currentThread().getName()));
            assertEquals(List.of(Signal.WINCH), guard.installed().signals());
            assertTrue(guard.refused().isEmpty(), guard.refused().toString());
            assertTrue(caught(Signal.WINCH), "the kernel shows a handler for WINCH");
            assertFalse(guard.stopRequested());
            assertEquals(Optional.empty(), guard.awaitStop(Duration.ofMillis(50)));
            assertThrows(IllegalStateException.class, guard::exitStatus);

            ProcessKey me = proc.key(self);
            assertTrue(LinuxSignals.using(proc).allowingSelf().send(me, Signal.WINCH).delivered());

            PreemptionGuard.StopRequest r = guard.awaitStop(TIMEOUT).orElseThrow();
            assertTrue(guard.stopRequested());
            assertEquals(Signal.WINCH, r.signal());
            assertFalse(r.receivedAt().isBefore(before));
            assertEquals(128 + 28, guard.exitStatus());
            Spawned.await(TIMEOUT, "listeners", () -> heard.size() == 1 && threads.size() == 1);
            assertEquals(r, heard.get(0));
            assertFalse(threads.get(0).equals(Thread.currentThread().getName()), "listeners run on the signal's thread");

            assertTrue(LinuxSignals.using(proc).allowingSelf().send(me, Signal.WINCH).delivered());
            Spawned.await(TIMEOUT, "a second arrival", () -> guard.requests().size() == 2);
            assertEquals(r, guard.firstRequest().orElseThrow(), "the first arrival stays the first");
        }
        assertFalse(caught(Signal.WINCH), "close() put back the default");
    }

    @Test
    void signalsTheJvmOwnsOrNoProcessCanCatchAreRefusedWithTheirReason() {
        try (PreemptionGuard guard = Procscope.system().preemptionGuard(PreemptionGuardOptions.defaults()
                .withSignals(Signal.QUIT, Signal.USR2, Signal.SEGV, Signal.BUS, Signal.PIPE, Signal.FPE, Signal.ILL,
                        Signal.KILL, Signal.STOP, Signal.of(40)))) {
            assertTrue(guard.installed().isEmpty(), guard.installed().toString());
            List<PreemptionGuard.Refusal> refused = guard.refused();
            assertEquals(10, refused.size(), refused.toString());
            for (PreemptionGuard.Refusal r : refused) {
                PreemptionGuard.Reason expected = switch (r.signal().number()) {
                    case 9, 19 -> PreemptionGuard.Reason.UNCATCHABLE;
                    case 40 -> PreemptionGuard.Reason.UNKNOWN_TO_JVM;
                    default -> PreemptionGuard.Reason.JVM_OWNED;
                };
                assertEquals(expected, r.reason(), r.explanation());
                assertTrue(r.explanation().contains(r.signal().toString()), r.explanation());
            }
            assertEquals(Signal.QUIT, refused.get(0).signal(), "in the order asked");
            assertTrue(refused.get(0).explanation().contains("thread dump"), refused.get(0).explanation());
        }
        // The JVM's own handlers are still in place.
        assertTrue(caught(Signal.QUIT) || proc.status(self).signals().blocked().contains(Signal.QUIT));
        assertTrue(caught(Signal.SEGV));
    }

    @Test
    void oneSignalHasOneGuardAtATime() {
        try (PreemptionGuard first = Procscope.system().preemptionGuard(PreemptionGuardOptions.defaults().withSignals(Signal.WINCH))) {
            try (PreemptionGuard second = Procscope.system().preemptionGuard(PreemptionGuardOptions.defaults().withSignals(Signal.WINCH, Signal.URG))) {
                assertEquals(List.of(Signal.URG), second.installed().signals());
                assertEquals(PreemptionGuard.Reason.ALREADY_GUARDED, second.refused().get(0).reason());
                assertEquals(Signal.WINCH, second.refused().get(0).signal());
            }
            assertTrue(first.installed().contains(Signal.WINCH));
            assertTrue(caught(Signal.WINCH), "closing the second guard left the first one's handler alone");
            assertFalse(caught(Signal.URG));
        }
        try (PreemptionGuard again = Procscope.system().preemptionGuard(PreemptionGuardOptions.defaults().withSignals(Signal.WINCH))) {
            assertTrue(again.refused().isEmpty(), "a closed guard frees its signals");
        }
    }

    @Test
    void closeIsIdempotentAndAClosedGuardRecordsNothing() throws Exception {
        PreemptionGuard guard = Procscope.system().preemptionGuard(PreemptionGuardOptions.defaults().withSignals(Signal.WINCH));
        guard.close();
        guard.close();
        assertTrue(guard.installed().isEmpty());
        assertTrue(LinuxSignals.using(proc).allowingSelf().send(proc.key(self), Signal.WINCH).delivered());
        assertEquals(Optional.empty(), guard.awaitStop(Duration.ofMillis(300)));
    }

    @Test
    void aThrowingListenerDoesNotKeepTheOthersFromRunning() throws Exception {
        List<Signal> heard = new CopyOnWriteArrayList<>();
        Thread.UncaughtExceptionHandler previous = Thread.getDefaultUncaughtExceptionHandler();
        List<Throwable> uncaught = new CopyOnWriteArrayList<>();
        Thread.setDefaultUncaughtExceptionHandler((t, e) -> uncaught.add(e));
        try (PreemptionGuard guard = Procscope.system().preemptionGuard(PreemptionGuardOptions.defaults().withSignals(Signal.WINCH))) {
            guard.addListener(r -> {
                throw new IllegalStateException("listener failed");
            });
            guard.addListener(r -> heard.add(r.signal()));
            LinuxSignals.using(proc).allowingSelf().send(proc.key(self), Signal.WINCH);
            assertTrue(guard.awaitStop(TIMEOUT).isPresent());
            Spawned.await(TIMEOUT, "the second listener and the failure", () -> heard.size() == 1 && uncaught.size() == 1);
            assertEquals("listener failed", uncaught.get(0).getMessage());
        } finally {
            Thread.setDefaultUncaughtExceptionHandler(previous);
        }
    }
}
