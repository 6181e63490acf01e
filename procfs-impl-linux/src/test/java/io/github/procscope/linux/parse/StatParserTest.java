package io.github.procscope.linux.parse;

import io.github.procscope.testing.Fixtures;

import io.github.procscope.api.core.ProcfsParseException;
import io.github.procscope.api.process.ProcessStat;
import io.github.procscope.api.process.ProcessState;
import io.github.procscope.api.process.SchedulingPolicy;
import io.github.procscope.api.signals.Signal;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.OptionalLong;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class StatParserTest {
    private static final Path SRC = Path.of("/proc/42/stat");

    static ProcessStat parse(String text) {
        byte[] b = text.getBytes(StandardCharsets.UTF_8);
        return StatParser.parse(SRC, b, b.length, Fixtures.CONSTANTS);
    }

    static ProcessStat fixture(String relative) {
        byte[] b = Fixtures.bytes("proc/" + relative);
        return StatParser.parse(SRC, b, b.length, Fixtures.CONSTANTS);
    }

    @Test
    void everyFieldOfAUserProcessIsTypedAndInUnits() {
        ProcessStat s = fixture("100/stat");
        assertEquals(100, s.pid());
        assertEquals("bash", s.comm());
        assertEquals(ProcessState.SLEEPING, s.state());
        assertEquals(1, s.ppid());
        assertEquals(100, s.pgrp());
        assertEquals(100, s.session());
        assertEquals(34816, s.ttyNr());
        assertEquals(OptionalLong.of(100), s.terminalProcessGroup());
        assertEquals(2000, s.minorFaults());
        assertEquals(3, s.majorFaults());
        assertEquals(Duration.ofMillis(2500), s.userTime());
        assertEquals(Duration.ofMillis(500), s.systemTime());
        assertEquals(Duration.ofMillis(3000), s.cpuTime());
        assertEquals(20, s.priority());
        assertEquals(0, s.nice());
        assertEquals(2, s.threads());
        assertEquals(1000, s.startTimeTicks());
        assertEquals(12_288_000, s.vszBytes());
        assertEquals(1024 * 4096, s.rssBytes());
        assertEquals(OptionalLong.empty(), s.rssLimitBytes(), "RLIM_INFINITY is no limit");
        assertEquals(OptionalLong.of(94362245414912L), s.startCode());
        assertEquals(OptionalLong.empty(), s.kstkEsp(), "0 means withheld");
        assertTrue(s.signalIgnored().contains(Signal.HUP));
        assertTrue(s.signalCaught().contains(Signal.INT));
        assertTrue(s.signalCaught().contains(Signal.CHLD), "65538 has bits 1 and 16: INT and CHLD");
        assertEquals(2, s.signalCaught().size());
        assertEquals(Optional.of(Signal.CHLD), s.exitSignal());
        assertEquals(Optional.of(SchedulingPolicy.OTHER), s.policy());
        assertEquals(Optional.of(Duration.ZERO), s.blockIoDelay());
        assertEquals(OptionalLong.of(140732146147307L), s.envEnd());
        assertEquals(OptionalInt.empty(), s.exitCode());
        assertFalse(s.isKernelThread());
    }

    @Test
    void aTaskPastExitHasNoGroupOrSessionRatherThanAParseError() {
        // Copied from a live kernel: a child of sh read while it was being reaped.
        ProcessStat s = parse("16921 (sh) X 0 -1 -1 0 -1 4227084 122 0 0 0 0 0 0 0 20 0 0 0 1054381 0 0 0 0 0 0 0"
                + " 0 0 0 0 0 1 0 0 17 1 0 0 0 0 0 0 0 0 0 0 0 0 0\n");
        assertEquals(ProcessState.DEAD, s.state());
        assertEquals(0, s.ppid());
        assertEquals(0, s.pgrp());
        assertEquals(0, s.session());
        assertThrows(ProcfsParseException.class, () -> parse("7 (x) S 1 -2 7 0 -1 4194304 0 0 0 0 0 0 0 0 20 0 1 0"
                + " 100 0 0 18446744073709551615 0 0 0 0 0 0 0 0 0 0 0 0 17 0 0 0 0 0 0 0 0 0 0 0 0 0 0\n"));
    }

    @Test
    void commIsTakenUpToTheLastClosingParenthesis() {
        ProcessStat s = fixture("200/stat");
        assertEquals("a) (b c", s.comm());
        assertEquals(ProcessState.SLEEPING, s.state());
        assertEquals(100, s.ppid());
        assertEquals(5, s.nice());
        assertEquals(200 * 4096, s.rssBytes());
    }

    @Test
    void commMayHoldANewline() {
        ProcessStat s = fixture("600/stat");
        assertEquals("new\nline", s.comm());
        assertEquals(6000, s.startTimeTicks());
    }

    @Test
    void utf8CommIsDecoded() {
        assertEquals("학습", fixture("700/stat").comm());
        assertEquals(Optional.of(SchedulingPolicy.BATCH), fixture("700/stat").policy());
    }

    @Test
    void textAfterTheFieldLineIsIgnored() {
        ProcessStat s = fixture("201/stat");
        assertEquals("x", s.comm());
        assertEquals(ProcessState.RUNNING, s.state());
        assertEquals(2 * 4096, s.rssBytes());
        assertEquals(OptionalInt.empty(), s.exitCode());
    }

    @Test
    void kernelThreadsHaveNoAddressesAndAreRecognised() {
        ProcessStat s = fixture("10/stat");
        assertTrue(s.isKernelThread());
        assertEquals(ProcessState.IDLE, s.state());
        assertEquals(-20, s.nice());
        assertEquals(0, s.vszBytes());
        assertEquals(OptionalLong.empty(), s.startCode());
        assertEquals(OptionalLong.empty(), s.startStack());
    }

    @Test
    void zombieKeepsItsExitCode() {
        ProcessStat s = fixture("300/stat");
        assertEquals(ProcessState.ZOMBIE, s.state());
        assertEquals(OptionalInt.of(256), s.exitCode());
    }

    @Test
    void threadsReportNoExitSignal() {
        ProcessStat s = fixture("100/task/101/stat");
        assertEquals(101, s.pid());
        assertEquals("worker-1", s.comm());
        assertEquals(Optional.empty(), s.exitSignal());
        assertEquals(1, s.processor());
    }

    @Test
    void olderKernelsWithFortyOneFieldsParseWithOptionalFieldsEmpty() {
        String line = "7 (old) S 1 7 7 0 -1 4194304 0 0 0 0 5 5 0 0 20 0 1 0 99 1000 2 4294967295"
                + " 1 2 3 0 0 0 0 0 0 0 0 0 17 0 0 0\n";
        ProcessStat s = parse(line);
        assertEquals(99, s.startTimeTicks());
        assertEquals(OptionalLong.of(4294967295L), s.rssLimitBytes());
        assertEquals(Optional.empty(), s.blockIoDelay());
        assertEquals(Optional.empty(), s.guestTime());
        assertEquals(OptionalLong.empty(), s.envEnd());
    }

    @Test
    void tooFewFieldsNameTheFileAndCount() {
        ProcfsParseException e = assertThrows(ProcfsParseException.class,
                () -> parse("7 (short) S 1 7 7 0 -1 4194304 0\n"));
        assertTrue(e.getMessage().contains("/proc/42/stat"), e.getMessage());
        assertTrue(e.getMessage().contains("at least 41 fields"), e.getMessage());
        assertEquals(SRC, e.file());
    }

    @Test
    void unknownStateLetterIsAParseError() {
        String line = fixtureText("1/stat").replace(") S ", ") Q ");
        ProcfsParseException e = assertThrows(ProcfsParseException.class, () -> parse(line));
        assertTrue(e.getMessage().contains("state letter"), e.getMessage());
    }

    @Test
    void missingParenthesesIsAParseError() {
        assertThrows(ProcfsParseException.class, () -> parse("7 short S 1 7 7\n"));
        assertThrows(ProcfsParseException.class, () -> parse(""));
        assertThrows(ProcfsParseException.class, () -> parse("(x) S"));
        assertThrows(ProcfsParseException.class, () -> parse("-3 (x) S 1"));
    }

    @Test
    void numbersThatOverflowAreParseErrors() {
        String line = fixtureText("1/stat").replace(" 171790336 ", " 99999999999999999999999 ");
        assertThrows(ProcfsParseException.class, () -> parse(line));
        String hugeRss = fixtureText("1/stat").replace(" 171790336 3000 ", " 171790336 9223372036854775807 ");
        assertThrows(ProcfsParseException.class, () -> parse(hugeRss), "rss in pages would overflow bytes");
    }

    static String fixtureText(String relative) {
        return new String(Fixtures.bytes("proc/" + relative), StandardCharsets.UTF_8);
    }
}
