package io.github.procscope.linux.parse;

import io.github.procscope.linux.proc.TtyNames;
import io.github.procscope.linux.sys.ByteCursor;
import io.github.procscope.linux.sys.KernelConstants;
import io.github.procscope.testing.Fixtures;

import io.github.procscope.api.core.ProcfsParseException;
import org.junit.jupiter.api.Test;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.quicktheories.QuickTheory.qt;

/** The small per-file parsers: cmdline, /proc/stat, /proc/uptime, auxv, CPU lists, tty names. */
class SmallParsersTest {
    private static byte[] b(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    @Test
    void cmdlineSplitsAtNulsAndKeepsSpaces() {
        byte[] x = b("python\0train.py\0--name\0my run\0");
        assertEquals(List.of("python", "train.py", "--name", "my run"), CmdlineParser.parse(x, x.length));
    }

    @Test
    void cmdlineOfKernelThreadsAndZombiesIsEmpty() {
        assertEquals(List.of(), CmdlineParser.parse(new byte[0], 0));
    }

    @Test
    void cmdlineRewrittenWithoutFinalNulKeepsItsLastArgument() {
        byte[] x = b("worker: idle waiting");
        assertEquals(List.of("worker: idle waiting"), CmdlineParser.parse(x, x.length));
        byte[] y = b("a\0\0b");
        assertEquals(List.of("a", "", "b"), CmdlineParser.parse(y, y.length), "empty arguments are kept");
    }

    @Test
    void statmCountsPagesAsBytes() {
        byte[] x = b("2920 432 389 5 0 79 0\n");
        var m = StatmParser.parse(Path.of("/proc/9/statm"), x, x.length, Fixtures.CONSTANTS);
        assertEquals(2920 * 4096L, m.sizeBytes());
        assertEquals(432 * 4096L, m.residentBytes());
        assertEquals(389 * 4096L, m.sharedBytes());
        assertEquals(5 * 4096L, m.textBytes());
        assertEquals(79 * 4096L, m.dataBytes());
        byte[] bad = b("1 2 3\n");
        assertThrows(ProcfsParseException.class, () -> StatmParser.parse(Path.of("statm"), bad, bad.length, Fixtures.CONSTANTS));
    }

    @Test
    void kernelStatGivesBootTimeAndCounters() {
        byte[] x = Fixtures.bytes("proc/stat");
        KernelStat s = KernelStatParser.parse(Path.of("/proc/stat"), x, x.length);
        assertEquals(Instant.parse("2025-12-02T10:40:00Z"), s.bootTime());
        assertEquals(5300, s.processesCreated());
        assertEquals(2, s.processesRunning());
        assertEquals(1, s.processesBlocked());
        assertEquals(412345, s.contextSwitches());
    }

    @Test
    void kernelStatWithoutBtimeIsAParseError() {
        byte[] x = b("cpu 1 2 3\nctxt 5\n");
        assertThrows(ProcfsParseException.class, () -> KernelStatParser.parse(Path.of("/proc/stat"), x, x.length));
    }

    @Test
    void uptimeKeepsItsFraction() {
        byte[] x = b("350735.47 234388.90\n");
        assertEquals(Duration.ofSeconds(350735, 470_000_000), UptimeParser.parse(Path.of("/proc/uptime"), x, x.length));
        byte[] bad = b("abc");
        assertThrows(ProcfsParseException.class, () -> UptimeParser.parse(Path.of("/proc/uptime"), bad, bad.length));
        byte[] dot = b("12.\n");
        assertThrows(ProcfsParseException.class, () -> UptimeParser.parse(Path.of("/proc/uptime"), dot, dot.length));
    }

    @Test
    void auxvFindsClockTicksAndPageSize() {
        ByteBuffer bb = ByteBuffer.allocate(64).order(ByteOrder.nativeOrder());
        bb.putLong(AuxvParser.AT_PAGESZ).putLong(16384).putLong(AuxvParser.AT_CLKTCK).putLong(250).putLong(AuxvParser.AT_NULL).putLong(0);
        byte[] x = bb.array();
        assertEquals(OptionalLong.of(16384), AuxvParser.find(Path.of("auxv"), x, 48, 8, AuxvParser.AT_PAGESZ));
        assertEquals(OptionalLong.of(250), AuxvParser.find(Path.of("auxv"), x, 48, 8, AuxvParser.AT_CLKTCK));
        assertEquals(OptionalLong.empty(), AuxvParser.find(Path.of("auxv"), x, 48, 8, 99));
        assertThrows(ProcfsParseException.class, () -> AuxvParser.find(Path.of("auxv"), x, 47, 8, AuxvParser.AT_PAGESZ));
    }

    @Test
    void liveAuxvAgreesWithGetconf() {
        KernelConstants k = AuxvParser.detect();
        assertEquals(Long.parseLong(io.github.procscope.testing.Commands.run("getconf", "CLK_TCK").trim()),
                k.clockTicksPerSecond());
        assertEquals(Long.parseLong(io.github.procscope.testing.Commands.run("getconf", "PAGESIZE").trim()),
                k.pageSizeBytes());
    }

    @Test
    void cpuListsExpandRanges() {
        byte[] x = b("0-2,5,7-8\n");
        assertEquals(List.of(0, 1, 2, 5, 7, 8), CpuListParser.parse(new ByteCursor(Path.of("f"), x, x.length)));
        byte[] bad = b("4-2\n");
        assertThrows(ProcfsParseException.class, () -> CpuListParser.parse(new ByteCursor(Path.of("f"), bad, bad.length)));
    }

    @Test
    void ttyNamesFollowTheDeviceNumbering() {
        assertEquals(Optional.of("pts/0"), TtyNames.name(34816));
        assertEquals(Optional.of("pts/3"), TtyNames.name((136 << 8) | 3));
        assertEquals(Optional.of("pts/300"), TtyNames.name((137 << 8) | 44));
        assertEquals(Optional.of("pts/1000"), TtyNames.name((136 << 8) | (1000 & 0xff) | ((1000 & ~0xff) << 12)));
        assertEquals(Optional.of("tty1"), TtyNames.name((4 << 8) | 1));
        assertEquals(Optional.of("ttyS0"), TtyNames.name((4 << 8) | 64));
        assertEquals(Optional.of("console"), TtyNames.name((5 << 8) | 1));
        assertEquals(Optional.empty(), TtyNames.name(0));
        assertEquals(Optional.empty(), TtyNames.name(250 << 8));
    }

    @Test
    void ticksConvertExactlyForAnyRate() {
        KernelConstants k = new KernelConstants(300, 4096);
        assertEquals(Duration.ofSeconds(1, 3_333_333), k.ticks(301), "1/300 s truncated to nanoseconds");
        qt().forAll(org.quicktheories.generators.SourceDSL.longs().between(0, Long.MAX_VALUE)).checkAssert(t -> {
            Duration d = Fixtures.CONSTANTS.ticks(t);
            assertEquals(t / 100, d.getSeconds());
            assertEquals((t % 100) * 10_000_000L, d.getNano());
        });
    }
}
