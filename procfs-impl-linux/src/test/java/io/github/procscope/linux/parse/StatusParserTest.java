package io.github.procscope.linux.parse;

import io.github.procscope.testing.Fixtures;

import io.github.procscope.api.core.ProcfsParseException;
import io.github.procscope.api.process.ProcessState;
import io.github.procscope.api.process.ProcessStatus;
import io.github.procscope.api.signals.Signal;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.OptionalLong;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.quicktheories.QuickTheory.qt;
import static org.quicktheories.generators.SourceDSL.integers;

class StatusParserTest {
    private static final Path SRC = Path.of("/proc/100/status");

    static ProcessStatus fixture(String relative) {
        byte[] b = Fixtures.bytes("proc/" + relative);
        return StatusParser.parse(SRC, b, b.length);
    }

    static ProcessStatus parse(String text) {
        byte[] b = text.getBytes(StandardCharsets.UTF_8);
        return StatusParser.parse(SRC, b, b.length);
    }

    @Test
    void everyLineOfAUserProcessIsTyped() {
        ProcessStatus s = fixture("100/status");
        assertEquals("bash", s.name());
        assertEquals(ProcessState.SLEEPING, s.state());
        assertEquals(100, s.tgid());
        assertEquals(100, s.pid());
        assertEquals(1, s.ppid());
        assertEquals(OptionalLong.empty(), s.tracerPid());
        assertEquals(new ProcessStatus.Ids(1000, 1000, 1000, 1000), s.uid());
        assertEquals(OptionalLong.of(256), s.fdSize());
        assertEquals(List.of(4L, 24L, 27L, 1000L), s.groups());
        assertEquals(List.of(100L, 1L), s.nsPid());
        assertEquals(1, s.innermostPid());
        assertEquals(OptionalLong.of(12400 * 1024L), s.memory().peakBytes());
        assertEquals(OptionalLong.of(4096 * 1024L), s.memory().rssBytes());
        assertEquals(OptionalLong.of(1024 * 1024L), s.memory().rssAnonBytes());
        assertEquals(OptionalLong.of(2560 * 1024L), s.memory().rssFileBytes());
        assertEquals(OptionalLong.of(512 * 1024L), s.memory().rssShmemBytes());
        assertEquals(OptionalLong.of(128 * 1024L), s.memory().swapBytes());
        assertEquals(2, s.threads());
        assertEquals(OptionalLong.of(0), s.signalsQueued());
        assertEquals(OptionalLong.of(96363), s.signalQueueLimit());
        assertTrue(s.signals().ignored().contains(Signal.HUP));
        assertTrue(s.signals().ignoresHangup());
        assertTrue(s.signals().handlesTerm());
        assertTrue(s.signals().caught().contains(Signal.INT));
        assertEquals(List.of(Signal.CHLD), s.signals().blocked().signals());
        assertEquals(List.of(0, 1), s.cpusAllowed());
        assertEquals(List.of(0), s.memsAllowed());
        assertEquals(OptionalLong.of(338), s.voluntaryContextSwitches());
        assertEquals(OptionalLong.of(28), s.nonvoluntaryContextSwitches());
    }

    @Test
    void threadsHaveTheirOwnMasks() {
        ProcessStatus t = fixture("100/task/101/status");
        assertEquals("worker-1", t.name());
        assertEquals(101, t.pid());
        assertEquals(100, t.tgid());
        assertTrue(t.signals().blocksTerm());
        assertEquals(List.of(Signal.USR1), t.signals().pending().signals(), "0x200 is bit 9: signal 10");
    }

    @Test
    void kernelThreadsAndZombiesHaveNoMemoryLines() {
        ProcessStatus k = fixture("2/status");
        assertEquals(ProcessStatus.VmStats.none(), k.memory());
        assertEquals(64, k.signals().ignored().size(), "kthreadd ignores every signal");
        ProcessStatus z = fixture("300/status");
        assertEquals(ProcessState.ZOMBIE, z.state());
        assertEquals(ProcessStatus.VmStats.none(), z.memory());
        assertEquals(OptionalLong.of(0), z.fdSize());
    }

    @Test
    void escapedNamesAreUnescaped() {
        assertEquals("new\nline", fixture("600/status").name());
        assertEquals("a\\b", parse(minimal("a\\\\b")).name());
        assertEquals("tab\there", parse(minimal("tab\\there")).name());
        assertEquals("oct\nal", parse(minimal("oct\\012al")).name(), "older kernels escaped in octal");
        assertEquals("학습", fixture("700/status").name());
        assertEquals("a) (b c", fixture("200/status").name());
    }

    @Test
    void unknownLinesAreSkipped() {
        ProcessStatus s = parse(minimal("x") + "Some_future_line:\t1 2 3 whatever\nSpeculation_Store_Bypass:\tthread vulnerable\n");
        assertEquals("x", s.name());
    }

    @Test
    void missingRequiredLinesAreParseErrors() {
        ProcfsParseException e = assertThrows(ProcfsParseException.class,
                () -> parse("Name:\tx\nState:\tS (sleeping)\n"));
        assertTrue(e.getMessage().contains("required"), e.getMessage());
        assertTrue(e.getMessage().contains(SRC.toString()), e.getMessage());
    }

    @Test
    void malformedValuesAreParseErrorsNamingTheLine() {
        ProcfsParseException e = assertThrows(ProcfsParseException.class,
                () -> parse(minimal("x") + "VmRSS:\t12 MB\n"));
        assertTrue(e.getMessage().contains("VmRSS"), e.getMessage());
        assertThrows(ProcfsParseException.class, () -> parse(minimal("x") + "SigBlk:\tzz\n"));
        assertThrows(ProcfsParseException.class, () -> parse(minimal("x") + "Cpus_allowed_list:\t3-1\n"));
        assertThrows(ProcfsParseException.class, () -> parse(minimal("x").replace("S (sleeping)", "? (what)")));
    }

    @Test
    void mutatedRealFilesRaiseNothingButParseExceptions() {
        byte[] real = Fixtures.bytes("proc/100/status");
        qt().withExamples(2000)
                .forAll(integers().between(0, real.length), integers().between(0, real.length - 1), integers().between(0, 255))
                .checkAssert((cut, at, value) -> {
                    byte[] b = real.clone();
                    b[at] = (byte) (int) value;
                    try {
                        StatusParser.parse(SRC, b, cut);
                    } catch (ProcfsParseException expected) {
                        // the only acceptable failure
                    }
                });
    }

    private static String minimal(String name) {
        return "Name:\t" + name + "\nState:\tS (sleeping)\nTgid:\t5\nPid:\t5\nPPid:\t1\nUid:\t0\t0\t0\t0\n"
                + "Gid:\t0\t0\t0\t0\nThreads:\t1\n";
    }

    @Test
    void requiredLinesPresentGiveEmptyOptionals() {
        ProcessStatus s = parse(minimal("x"));
        assertFalse(s.fdSize().isPresent());
        assertEquals(List.of(), s.nsPid());
        assertEquals(5, s.innermostPid());
    }
}
