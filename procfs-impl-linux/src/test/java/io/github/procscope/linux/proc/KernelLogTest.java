package io.github.procscope.linux.proc;

import io.github.procscope.linux.parse.KmsgParser;
import io.github.procscope.linux.parse.KmsgRecord;
import io.github.procscope.testing.Fixtures;

import io.github.procscope.api.diagnose.OomKill;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** /dev/kmsg records and the OOM reports of several kernel generations, from fixtures. */
class KernelLogTest {
    private static final Instant BOOT = Instant.parse("2026-12-01T00:00:00Z");

    private static List<OomKill> kills(String fixture) {
        return LinuxKernelLog.at(Fixtures.dir("kmsg/" + fixture), BOOT).oomKills();
    }

    @Test
    void recordsHaveLevelSequenceTimeAndText() {
        byte[] b = "3,416,1666499822,-;Memory cgroup out of memory\n SUBSYSTEM=memory\n6,417,5,c;next\n"
                .getBytes(StandardCharsets.UTF_8);
        List<KmsgRecord> r = KmsgParser.parse(Path.of("/dev/kmsg"), b, b.length);
        assertEquals(2, r.size());
        assertEquals(new KmsgRecord(3, 0, 416, 1666499822L, "Memory cgroup out of memory"), r.get(0));
        assertEquals("next", r.get(1).message());
    }

    @Test
    void escapesAreDecoded() {
        List<KmsgRecord> r = LinuxKernelLog.at(Fixtures.dir("kmsg/oom-hostile.txt"), BOOT).records();
        assertEquals("line with an escaped\nnewline and a backslash \\", r.get(1).message());
        assertEquals(3, r.get(3).level());
    }

    @Test
    void modernMemoryCgroupKillMergesTheConstraintLine() {
        List<OomKill> k = kills("oom-6x-memcg.txt");
        assertEquals(1, k.size(), "the oom_reaper line is not a second kill");
        OomKill hog = k.get(0);
        assertEquals(25425, hog.pid());
        assertEquals("hog", hog.comm());
        assertEquals(Optional.of(BOOT.plus(Duration.ofNanos(1666499822L * 1000))), hog.time());
        assertEquals(OptionalLong.of(35372 * 1024L), hog.totalVmBytes());
        assertEquals(OptionalLong.of(32512 * 1024L), hog.anonRssBytes());
        assertEquals(OptionalLong.of(936 * 1024L), hog.fileRssBytes());
        assertEquals(OptionalLong.of(0), hog.shmemRssBytes());
        assertEquals(OptionalLong.of(0), hog.uid());
        assertTrue(hog.memoryCgroup());
        assertEquals(Optional.of("/procscope-probe"), hog.cgroup());
        assertEquals(Optional.of("CONSTRAINT_MEMCG"), hog.constraint());
    }

    @Test
    void globalOomOfFiveX() {
        OomKill k = kills("oom-5x-global.txt").get(0);
        assertEquals(1234, k.pid());
        assertFalse(k.memoryCgroup());
        assertEquals(Optional.of("CONSTRAINT_NONE"), k.constraint());
        assertEquals(Optional.of("/user.slice/user-1000.slice/session-3.scope"), k.cgroup());
        assertEquals(OptionalLong.of(1000), k.uid());
        assertEquals(OptionalLong.of(2048 * 1024L), k.shmemRssBytes());
    }

    @Test
    void olderTwoLineReports() {
        List<OomKill> k = kills("oom-4x.txt");
        assertEquals(2, k.size());
        assertEquals(2345, k.get(0).pid());
        assertFalse(k.get(0).memoryCgroup());
        assertEquals(OptionalLong.of(7_000_000 * 1024L), k.get(0).anonRssBytes());
        assertEquals(3456, k.get(1).pid());
        assertTrue(k.get(1).memoryCgroup(), "announced by the Memory cgroup line before it");
        assertEquals(OptionalLong.empty(), k.get(1).shmemRssBytes(), "not printed before 4.5");
        assertEquals(OptionalLong.empty(), k.get(1).uid());
        OomKill old = kills("oom-2.6.txt").get(0);
        assertEquals(4567, old.pid());
        assertEquals("a.out", old.comm());
        assertEquals(OptionalLong.of(123456 * 1024L), old.totalVmBytes());
    }

    @Test
    void hostileLinesNeitherConfuseNorBreakTheReader() {
        List<OomKill> k = kills("oom-hostile.txt");
        assertEquals(2, k.size());
        assertEquals("a) (b c", k.get(0).comm());
        assertEquals(6789, k.get(1).pid());
        assertEquals(OptionalLong.empty(), k.get(1).totalVmBytes(), "a malformed figure is absent, not zero");
        assertEquals(OptionalLong.of(5 * 1024L), k.get(1).anonRssBytes());
        assertEquals(List.of(), kills("clean.txt"));
    }

}
