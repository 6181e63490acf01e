package io.github.procscope.linux;

import io.github.procscope.api.ProcfsParseException;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Values no kernel writes are parse errors naming the file and field, never negative or wrapped numbers. */
class HostileValuesTest {
    private static final String MAX = "18446744073709551615";
    private static final Path STAT = Path.of("/proc/100/stat");
    private static final Path STATUS = Path.of("/proc/100/status");

    /** A valid stat line of 52 fields with field {@code field} replaced by {@code value}. */
    private static byte[] statWith(int field, String value) {
        StringBuilder b = new StringBuilder("100 (job) S");
        for (int i = 4; i <= 52; i++) {
            String v = i == 20 ? "1" : i == 18 ? "20" : "0";
            b.append(' ').append(i == field ? value : v);
        }
        return b.append('\n').toString().getBytes(StandardCharsets.US_ASCII);
    }

    private static String statError(int field, String value) {
        byte[] b = statWith(field, value);
        ProcfsParseException e = assertThrows(ProcfsParseException.class,
                () -> StatParser.parse(STAT, b, b.length, Fixtures.CONSTANTS));
        assertEquals(STAT, e.file());
        return e.getMessage();
    }

    @Test
    void theBaseLineParses() {
        byte[] b = statWith(0, "");
        assertEquals(100, StatParser.parse(STAT, b, b.length, Fixtures.CONSTANTS).pid());
    }

    @Test
    void statValuesAt2To64Minus1AreRefusedByName() {
        assertTrue(statError(23, MAX).contains("vsize (field 23) out of range"));
        assertTrue(statError(22, MAX).contains("starttime (field 22) out of range"));
        assertTrue(statError(14, MAX).contains("utime (field 14) out of range"));
        assertTrue(statError(10, MAX).contains("minflt (field 10) out of range"));
    }

    @Test
    void negativeThreadsAndParentsAreRefused() {
        assertTrue(statError(20, "-3").contains("num_threads (field 20) out of range: -3"));
        assertTrue(statError(4, "-5").contains("ppid (field 4) out of range: -5"));
        assertTrue(statError(19, "25").contains("nice (field 19)"));
    }

    private static final String STATUS_TEXT = "Name:\tjob\nState:\tS (sleeping)\nTgid:\t100\nPid:\t100\nPPid:\t1\n"
            + "TracerPid:\t0\nUid:\t0\t0\t0\t0\nGid:\t0\t0\t0\t0\nFDSize:\t64\nThreads:\t1\n";

    private static String statusError(String text) {
        byte[] b = text.getBytes(StandardCharsets.US_ASCII);
        ProcfsParseException e = assertThrows(ProcfsParseException.class, () -> StatusParser.parse(STATUS, b, b.length));
        assertEquals(STATUS, e.file());
        return e.getMessage();
    }

    @Test
    void statusIdsAndSizesAt2To64Minus1AreRefused() {
        byte[] ok = STATUS_TEXT.getBytes(StandardCharsets.US_ASCII);
        assertEquals(64, StatusParser.parse(STATUS, ok, ok.length).fdSize().getAsLong());
        assertTrue(statusError(STATUS_TEXT.replace("Uid:\t0\t0", "Uid:\t" + MAX + "\t0")).contains("id out of range"));
        assertTrue(statusError(STATUS_TEXT.replace("FDSize:\t64", "FDSize:\t" + MAX)).contains("FDSize out of range"));
        assertTrue(statusError(STATUS_TEXT.replace("Threads:\t1", "Threads:\t" + MAX)).contains("thread count"));
    }

    @Test
    void aDuplicateStatusKeyIsRefusedNotSilentlyOverwritten() {
        assertTrue(statusError(STATUS_TEXT + "Uid:\t1000\t1000\t1000\t1000\n").contains("duplicate Uid line"));
    }

    @Test
    void anSmapsRegionWithMoreRssThanItsSizeIsRefused() {
        String region = "00400000-00401000 r-xp 00000000 08:01 42 /bin/job\nSize: 4 kB\nKernelPageSize: 4 kB\n"
                + "MMUPageSize: 4 kB\nRss: RSS kB\nPss: 4 kB\nShared_Clean: 0 kB\nShared_Dirty: 0 kB\n"
                + "Private_Clean: 4 kB\nPrivate_Dirty: 0 kB\nReferenced: 4 kB\nAnonymous: 0 kB\n"
                + "AnonHugePages: 0 kB\nSwap: 0 kB\nLocked: 0 kB\n";
        byte[] ok = region.replace("RSS", "4").getBytes(StandardCharsets.US_ASCII);
        assertEquals(1, SmapsParser.parseSmaps(Path.of("/proc/100/smaps"), ok, ok.length).size());
        byte[] bad = region.replace("RSS", "8").getBytes(StandardCharsets.US_ASCII);
        ProcfsParseException e = assertThrows(ProcfsParseException.class,
                () -> SmapsParser.parseSmaps(Path.of("/proc/100/smaps"), bad, bad.length));
        assertTrue(e.getMessage().contains("exceeds its size of 4096 bytes"), e.getMessage());
    }
}
