package io.github.procscope.api.signals;

import org.junit.jupiter.api.Test;

import java.util.Optional;
import java.util.OptionalInt;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.quicktheories.QuickTheory.qt;
import static org.quicktheories.generators.SourceDSL.integers;

class ExitStatusTest {

    @Test
    void rawStatusOfAnExitIsTheCodeInTheSecondByte() {
        ExitStatus s = ExitStatus.fromWaitStatus(143 << 8);
        assertTrue(s instanceof ExitStatus.Exited);
        assertFalse(s instanceof ExitStatus.Killed);
        assertEquals(OptionalInt.of(143), exitCode(s));
        assertEquals(Optional.empty(), signal(s));
        assertEquals(143, s.shellStatus());
        assertEquals(ExitStatus.Source.WAIT_STATUS, s.source());
        assertEquals("exited 143", s.toString());
        assertEquals(ExitStatus.exited(143), s);
        assertTrue(ExitStatus.fromWaitStatus(0).isSuccess());
        assertEquals(OptionalInt.of(7), exitCode(ExitStatus.fromWaitStatus(0x0700)));
    }

    @Test
    void rawStatusOfADeathBySignalIsTheSignalInTheLowSevenBits() {
        ExitStatus kill = ExitStatus.fromWaitStatus(9);
        assertTrue(kill instanceof ExitStatus.Killed);
        assertEquals(Optional.of(Signal.KILL), signal(kill));
        assertEquals(OptionalInt.empty(), exitCode(kill));
        assertFalse(((ExitStatus.Killed) kill).coreDumped());
        assertEquals(137, kill.shellStatus());
        assertEquals("killed by SIGKILL", kill.toString());

        ExitStatus segv = ExitStatus.fromWaitStatus(0x80 | 11);
        assertEquals(Optional.of(Signal.SEGV), signal(segv));
        assertTrue(((ExitStatus.Killed) segv).coreDumped());
        assertEquals("killed by SIGSEGV (core dumped)", segv.toString());
        assertEquals(ExitStatus.killedBy(Signal.SEGV, true), segv);
        assertNotEquals(ExitStatus.killedBy(Signal.SEGV, false), segv);
        assertEquals(Optional.of(Signal.of(64)), signal(ExitStatus.fromWaitStatus(64)));
    }

    @Test
    void rawStatusesOfLivingProcessesAndNonsenseAreRefused() {
        IllegalArgumentException stopped = assertThrows(IllegalArgumentException.class,
                () -> ExitStatus.fromWaitStatus((19 << 8) | 0x7f));
        assertTrue(stopped.getMessage().contains("stopped"), stopped.getMessage());
        IllegalArgumentException cont = assertThrows(IllegalArgumentException.class,
                () -> ExitStatus.fromWaitStatus(0xffff));
        assertTrue(cont.getMessage().contains("continued"), cont.getMessage());
        assertThrows(IllegalArgumentException.class, () -> ExitStatus.fromWaitStatus(-1));
        assertThrows(IllegalArgumentException.class, () -> ExitStatus.fromWaitStatus(0x10000));
        assertThrows(IllegalArgumentException.class, () -> ExitStatus.fromWaitStatus(65));
        assertThrows(IllegalArgumentException.class, () -> ExitStatus.fromWaitStatus(0x80));
        assertThrows(IllegalArgumentException.class, () -> ExitStatus.fromWaitStatus((1 << 8) | 9));
        assertThrows(IllegalArgumentException.class, () -> ExitStatus.exited(256));
        assertThrows(IllegalArgumentException.class, () -> ExitStatus.exited(-1));
    }

    @Test
    void shellConventionReads137AsKillAnd143AsTerm() {
        ExitStatus s137 = ExitStatus.fromShellStatus(137);
        assertTrue(s137 instanceof ExitStatus.Killed);
        assertEquals(Optional.of(Signal.KILL), signal(s137));
        assertEquals(ExitStatus.Source.SHELL_CONVENTION, s137.source());
        assertEquals(137, s137.shellStatus());
        assertTrue(s137.explainInDetail().contains("OOM killer"), s137.explainInDetail());
        assertTrue(s137.explainInDetail().contains("unless the program itself exited with 137"), s137.explainInDetail());
        assertEquals("137 (SIGKILL by the shell convention)", s137.toString());

        ExitStatus s143 = ExitStatus.fromShellStatus(143);
        assertEquals(Optional.of(Signal.TERM), signal(s143));
        assertTrue(s143.explainInDetail().contains("SIGTERM"), s143.explainInDetail());
        assertTrue(s143.explainInDetail().contains("JVM"), s143.explainInDetail());
        assertTrue(s143.explainInDetail().contains("143"), s143.explainInDetail());
    }

    @Test
    void shellConventionKeepsLowAndHighCodesAsExits() {
        assertEquals(OptionalInt.of(0), exitCode(ExitStatus.fromShellStatus(0)));
        assertEquals(OptionalInt.of(1), exitCode(ExitStatus.fromShellStatus(1)));
        assertEquals(OptionalInt.of(128), exitCode(ExitStatus.fromShellStatus(128)));
        assertEquals(Optional.of(Signal.HUP), signal(ExitStatus.fromShellStatus(129)));
        assertEquals(Optional.of(Signal.of(64)), signal(ExitStatus.fromShellStatus(192)));
        assertEquals(OptionalInt.of(193), exitCode(ExitStatus.fromShellStatus(193)));
        assertEquals(OptionalInt.of(255), exitCode(ExitStatus.fromShellStatus(255)));
        assertTrue(ExitStatus.fromShellStatus(127).explainInDetail().contains("not found"));
        assertTrue(ExitStatus.fromShellStatus(126).explainInDetail().contains("could not be executed"));
        assertThrows(IllegalArgumentException.class, () -> ExitStatus.fromShellStatus(256));
        assertThrows(IllegalArgumentException.class, () -> ExitStatus.fromShellStatus(-1));
    }

    @Test
    void anExactExitWith143SaysTheJvmExitsThatWayOnTerm() {
        String e = ExitStatus.exited(143).explainInDetail();
        assertTrue(e.contains("exited with status 143"), e);
        assertTrue(e.contains("SIGTERM"), e);
        assertTrue(e.contains("JVM"), e);
        assertTrue(e.contains("exited by itself"), e);
    }

    @Test
    void exactKillExplainsOomKiller() {
        String e = ExitStatus.killedBy(Signal.KILL, false).explainInDetail();
        assertTrue(e.startsWith("killed by SIGKILL (9)"), e);
        assertTrue(e.contains("if nobody sent it, suspect the OOM killer") || e.contains("If nobody sent it, suspect the OOM"
                + " killer"), e);
        assertTrue(ExitStatus.killedBy(Signal.HUP, false).explainInDetail().contains("nohup"));
        assertTrue(ExitStatus.killedBy(Signal.of(40), false).explainInDetail().contains("RTMIN+6"));
    }

    @Test
    void everyRawStatusOfAnEndedProcessDecodesConsistently() {
        qt().forAll(integers().between(0, 255), integers().between(1, 64), integers().between(0, 1))
                .checkAssert((code, sig, core) -> {
                    ExitStatus exited = ExitStatus.fromWaitStatus(code << 8);
                    assertEquals(code, exited.shellStatus());
                    assertEquals(OptionalInt.of(code), exitCode(exited));
                    ExitStatus killed = ExitStatus.fromWaitStatus(sig | (core << 7));
                    assertEquals(Optional.of(Signal.of(sig)), signal(killed));
                    assertEquals(core == 1, ((ExitStatus.Killed) killed).coreDumped());
                    assertEquals(128 + sig, killed.shellStatus());
                    // The shell's reading of a death by signal names the same signal.
                    assertEquals(signal(killed), signal(ExitStatus.fromShellStatus(killed.shellStatus())));
                    assertFalse(killed.explainInDetail().isEmpty());
                    assertFalse(exited.explainInDetail().isEmpty());
                });
        qt().forAll(integers().all()).checkAssert(raw -> {
            try {
                ExitStatus s = ExitStatus.fromWaitStatus(raw);
                assertTrue(raw >= 0 && raw <= 0xffff);
                assertTrue(s.shellStatus() >= 0 && s.shellStatus() <= 255);
            } catch (IllegalArgumentException expected) {
                // the only failure allowed
            }
        });
    }

    @Test
    void theExplanationOf143AllowsACheckpointUnderTheGuard() {
        // A JVM whose training loop checkpoints under the preemption guard exits with 143 on purpose:
        // no reading of 143 may claim the program ignored TERM.
        for (ExitStatus s : new ExitStatus[]{ExitStatus.fromShellStatus(143), ExitStatus.exited(143)}) {
            String e = s.explainInDetail();
            assertFalse(e.contains("did not handle"), e);
            assertTrue(e.contains("checkpoint"), e);
            assertTrue(e.contains("on purpose"), e);
        }
        // Only the exact "killed by SIGTERM" says TERM went unhandled: a handled TERM is never a death by signal.
        assertTrue(ExitStatus.killedBy(Signal.TERM, false).explainInDetail().contains("did not handle"));
    }

    @Test
    void aShellReadingCannotClaimACoreDump() {
        assertThrows(IllegalArgumentException.class,
                () -> new ExitStatus.Killed(Signal.SEGV, true, ExitStatus.Source.SHELL_CONVENTION));
        assertThrows(IllegalArgumentException.class, () -> new ExitStatus.Exited(256, ExitStatus.Source.SHELL_CONVENTION));
    }

    private static OptionalInt exitCode(ExitStatus s) {
        return s instanceof ExitStatus.Exited e ? OptionalInt.of(e.code()) : OptionalInt.empty();
    }

    private static Optional<Signal> signal(ExitStatus s) {
        return s instanceof ExitStatus.Killed k ? Optional.of(k.signal()) : Optional.empty();
    }

    @Test
    void explainIsOneSentenceAndTheDetailsAreBehindTheirOwnMethod() {
        qt().forAll(integers().between(0, 0xffff)).checkAssert(raw -> {
            ExitStatus exact;
            try {
                exact = ExitStatus.fromWaitStatus(raw);
            } catch (IllegalArgumentException notAnEnding) {
                return;
            }
            for (ExitStatus s : new ExitStatus[]{exact, ExitStatus.fromShellStatus(exact.shellStatus())}) {
                String e = s.explain();
                assertTrue(e.endsWith("."), e);
                assertFalse(e.substring(0, e.length() - 1).contains(". "), "one sentence: " + e);
                assertTrue(s.explainInDetail().length() >= e.length(), s.explainInDetail());
            }
        });
        assertEquals("killed by SIGKILL (9): no handler could run; if nobody sent it, suspect the OOM killer.",
                ExitStatus.killedBy(Signal.KILL, false).explain());
        assertEquals("status 143: killed by SIGTERM, or the program exited with 143 itself, as a JVM does after"
                + " SIGTERM, and a training loop on purpose after its checkpoint.", ExitStatus.fromShellStatus(143).explain());
        assertEquals("exited with status 143 by itself (128 + 15 is the shell's code for SIGTERM).",
                ExitStatus.exited(143).explain());
        assertEquals("status 127: exited with status 127: the command was not found.",
                ExitStatus.fromShellStatus(127).explain());
        assertEquals("exited normally with status 0 (success).", ExitStatus.exited(0).explain());
    }
}
