package io.github.procscope.api.signals;

import io.github.procscope.api.Signal;
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
        assertTrue(s.exited());
        assertFalse(s.killed());
        assertEquals(OptionalInt.of(143), s.exitCode());
        assertEquals(Optional.empty(), s.signal());
        assertEquals(143, s.shellStatus());
        assertEquals(ExitStatus.Source.WAIT_STATUS, s.source());
        assertEquals("exited 143", s.toString());
        assertEquals(ExitStatus.exited(143), s);
        assertTrue(ExitStatus.fromWaitStatus(0).isSuccess());
        assertEquals(OptionalInt.of(7), ExitStatus.fromWaitStatus(0x0700).exitCode());
    }

    @Test
    void rawStatusOfADeathBySignalIsTheSignalInTheLowSevenBits() {
        ExitStatus kill = ExitStatus.fromWaitStatus(9);
        assertTrue(kill.killed());
        assertEquals(Optional.of(Signal.KILL), kill.signal());
        assertEquals(OptionalInt.empty(), kill.exitCode());
        assertFalse(kill.coreDumped());
        assertEquals(137, kill.shellStatus());
        assertEquals("killed by SIGKILL", kill.toString());

        ExitStatus segv = ExitStatus.fromWaitStatus(0x80 | 11);
        assertEquals(Optional.of(Signal.SEGV), segv.signal());
        assertTrue(segv.coreDumped());
        assertEquals("killed by SIGSEGV (core dumped)", segv.toString());
        assertEquals(ExitStatus.killedBy(Signal.SEGV, true), segv);
        assertNotEquals(ExitStatus.killedBy(Signal.SEGV, false), segv);
        assertEquals(Optional.of(Signal.of(64)), ExitStatus.fromWaitStatus(64).signal());
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
        assertTrue(s137.killed());
        assertEquals(Optional.of(Signal.KILL), s137.signal());
        assertEquals(ExitStatus.Source.SHELL_CONVENTION, s137.source());
        assertEquals(137, s137.shellStatus());
        assertTrue(s137.explain().contains("OOM killer"), s137.explain());
        assertTrue(s137.explain().contains("unless the program itself exited with 137"), s137.explain());
        assertEquals("137 (SIGKILL by the shell convention)", s137.toString());

        ExitStatus s143 = ExitStatus.fromShellStatus(143);
        assertEquals(Optional.of(Signal.TERM), s143.signal());
        assertTrue(s143.explain().contains("SIGTERM"), s143.explain());
        assertTrue(s143.explain().contains("JVM"), s143.explain());
        assertTrue(s143.explain().contains("143"), s143.explain());
    }

    @Test
    void shellConventionKeepsLowAndHighCodesAsExits() {
        assertEquals(OptionalInt.of(0), ExitStatus.fromShellStatus(0).exitCode());
        assertEquals(OptionalInt.of(1), ExitStatus.fromShellStatus(1).exitCode());
        assertEquals(OptionalInt.of(128), ExitStatus.fromShellStatus(128).exitCode());
        assertEquals(Optional.of(Signal.HUP), ExitStatus.fromShellStatus(129).signal());
        assertEquals(Optional.of(Signal.of(64)), ExitStatus.fromShellStatus(192).signal());
        assertEquals(OptionalInt.of(193), ExitStatus.fromShellStatus(193).exitCode());
        assertEquals(OptionalInt.of(255), ExitStatus.fromShellStatus(255).exitCode());
        assertTrue(ExitStatus.fromShellStatus(127).explain().contains("not found"));
        assertTrue(ExitStatus.fromShellStatus(126).explain().contains("could not be executed"));
        assertThrows(IllegalArgumentException.class, () -> ExitStatus.fromShellStatus(256));
        assertThrows(IllegalArgumentException.class, () -> ExitStatus.fromShellStatus(-1));
    }

    @Test
    void anExactExitWith143SaysTheJvmExitsThatWayOnTerm() {
        String e = ExitStatus.exited(143).explain();
        assertTrue(e.contains("exited with status 143"), e);
        assertTrue(e.contains("SIGTERM"), e);
        assertTrue(e.contains("JVM"), e);
        assertTrue(e.contains("exited by itself"), e);
    }

    @Test
    void exactKillExplainsOomKiller() {
        String e = ExitStatus.killedBy(Signal.KILL, false).explain();
        assertTrue(e.startsWith("killed by SIGKILL (9)"), e);
        assertTrue(e.contains("if nobody sent it, suspect the OOM killer") || e.contains("If nobody sent it, suspect the OOM"
                + " killer"), e);
        assertTrue(ExitStatus.killedBy(Signal.HUP, false).explain().contains("nohup"));
        assertTrue(ExitStatus.killedBy(Signal.of(40), false).explain().contains("RTMIN+6"));
    }

    @Test
    void everyRawStatusOfAnEndedProcessDecodesConsistently() {
        qt().forAll(integers().between(0, 255), integers().between(1, 64), integers().between(0, 1))
                .checkAssert((code, sig, core) -> {
                    ExitStatus exited = ExitStatus.fromWaitStatus(code << 8);
                    assertEquals(code, exited.shellStatus());
                    assertEquals(OptionalInt.of(code), exited.exitCode());
                    ExitStatus killed = ExitStatus.fromWaitStatus(sig | (core << 7));
                    assertEquals(Optional.of(Signal.of(sig)), killed.signal());
                    assertEquals(core == 1, killed.coreDumped());
                    assertEquals(128 + sig, killed.shellStatus());
                    // The shell's reading of a death by signal names the same signal.
                    assertEquals(killed.signal(), ExitStatus.fromShellStatus(killed.shellStatus()).signal());
                    assertFalse(killed.explain().isEmpty());
                    assertFalse(exited.explain().isEmpty());
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
}
