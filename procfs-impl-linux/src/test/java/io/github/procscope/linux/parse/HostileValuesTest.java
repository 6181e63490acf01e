package io.github.procscope.linux.parse;

import io.github.procscope.testing.Fixtures;

import io.github.procscope.api.core.ProcfsParseException;
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
    void statCountsAndSizesAt2To64Minus1AreRefusedByName() {
        assertTrue(statError(23, MAX).contains("vsize (field 23) out of range: " + MAX));
        assertTrue(statError(22, MAX).contains("starttime (field 22) out of range"));
        assertTrue(statError(10, MAX).contains("minflt (field 10) out of range"));
    }

    @Test
    void statTickCountsTakeTheWholeUnsignedRangeExactly() {
        byte[] b = statWith(14, MAX);
        java.time.Duration utime = StatParser.parse(STAT, b, b.length, Fixtures.CONSTANTS).userTime();
        // 2^64-1 ticks, not -1 and not an error: seconds and the remainder's nanoseconds, exactly
        long hz = Fixtures.CONSTANTS.clockTicksPerSecond();
        java.math.BigInteger ticks = java.math.BigInteger.valueOf(utime.getSeconds()).multiply(java.math.BigInteger.valueOf(hz))
                .add(java.math.BigInteger.valueOf(utime.getNano()).multiply(java.math.BigInteger.valueOf(hz))
                        .divide(java.math.BigInteger.valueOf(1_000_000_000)));
        assertEquals(new java.math.BigInteger(MAX), ticks);
    }

    @Test
    void minus2To63IsANumberInEveryField() {
        // A signed field the kernel holds unsigned: the same 64 bits, 2^63 ticks.
        byte[] b = statWith(16, "-9223372036854775808");
        assertEquals(Fixtures.CONSTANTS.ticks(Long.MIN_VALUE),
                StatParser.parse(STAT, b, b.length, Fixtures.CONSTANTS).childUserTime());
        // A signed field of any value.
        byte[] it = statWith(21, "-9223372036854775808");
        assertEquals(Long.MIN_VALUE, StatParser.parse(STAT, it, it.length, Fixtures.CONSTANTS).itRealValue());
        // Elsewhere it is refused by name, never "expected a number".
        for (int field : new int[] {4, 7, 9, 10, 14, 23, 25, 26, 31, 38, 52}) {
            String m = statError(field, "-9223372036854775808");
            assertTrue(m.contains("(field " + field + ")"), m);
            assertTrue(!m.contains("expected a number"), m);
        }
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

    private static final Path FILE = Path.of("/proc/edge");

    private static byte[] ascii(String s) {
        return s.getBytes(StandardCharsets.US_ASCII);
    }

    /** @return the message of the parse error {@code parse} raises, which must name {@code what} */
    private static String refused(String what, org.junit.jupiter.api.function.Executable parse) {
        ProcfsParseException e = assertThrows(ProcfsParseException.class, parse);
        assertTrue(e.getMessage().contains(what), e.getMessage());
        assertTrue(!e.getMessage().contains("expected a number"), e.getMessage());
        return e.getMessage();
    }

    @Test
    void everyParserTakesTheEdgesOfBothRangesAsNumbers() {
        // Unsigned 64-bit values held as their bits, documented so: an inode, a file position of -2^63.
        byte[] fdinfo = ascii("pos:\t-9223372036854775808\nflags:\t02\nmnt_id:\t1\nino:\t" + MAX + "\n");
        FdinfoParser.Fdinfo fi = FdinfoParser.parse(FILE, fdinfo, fdinfo.length, OpenFlagBits.GENERIC);
        assertEquals(Long.MIN_VALUE, fi.position());
        assertEquals(MAX, Long.toUnsignedString(fi.inode().getAsLong()));
        byte[] maps = ascii("00400000-00401000 r-xp 00000000 08:01 " + MAX + " /x\n");
        var region = MapsParser.parse(FILE, maps, maps.length).get(0);
        assertEquals(-1L, region.inode());
        assertTrue(region.toString().contains(" " + MAX + " /x"), region.toString());
        assertEquals(java.util.OptionalLong.empty(), ValueFileParser.limit(FILE, ascii(MAX + "\n"), MAX.length() + 1));
        assertEquals(java.util.OptionalLong.empty(),
                ValueFileParser.limit(FILE, ascii("9223372036854775808"), 19));
        assertEquals(Long.MAX_VALUE, ValueFileParser.number(FILE, ascii("9223372036854775807"), 19));

        // Counts and sizes a long holds refuse more, naming the key and the number.
        refused("value out of range: 9223372036854775808",
                () -> ValueFileParser.number(FILE, ascii("9223372036854775808"), 19));
        byte[] meminfo = ascii("MemTotal:       " + MAX + " kB\n");
        refused("MemTotal out of range: " + MAX, () -> MeminfoParser.parse(FILE, meminfo, meminfo.length));
        byte[] meminfoKib = ascii("MemTotal:       9007199254740992 kB\n");
        refused("MemTotal out of range: 9007199254740992 kB",
                () -> MeminfoParser.parse(FILE, meminfoKib, meminfoKib.length));
        byte[] btime = ascii("btime " + MAX + "\n");
        refused("btime out of range: " + MAX, () -> KernelStatParser.parse(FILE, btime, btime.length));
        byte[] btimeBeyondInstant = ascii("btime 9223372036854775807\n");
        refused("btime out of range", () -> KernelStatParser.parse(FILE, btimeBeyondInstant, btimeBeyondInstant.length));
        byte[] ctxt = ascii("ctxt " + MAX + "\nbtime 1\n");
        refused("ctxt out of range: " + MAX, () -> KernelStatParser.parse(FILE, ctxt, ctxt.length));
        byte[] kmsg = ascii("6," + MAX + ",0,-;x\n");
        refused("sequence number out of range: " + MAX, () -> KmsgParser.parse(FILE, kmsg, kmsg.length));
        byte[] disk = ascii("   8       0 sda " + MAX + " 0 0 0 0 0 0 0 0 0 0\n");
        refused("sda: reads completed (field 4) out of range: " + MAX,
                () -> DiskstatsParser.parse(FILE, disk, disk.length));
        byte[] statm = ascii(MAX + " 0 0 0 0 0 0\n");
        refused("page count out of range: " + MAX, () -> StatmParser.parse(FILE, statm, statm.length,
                Fixtures.CONSTANTS));
        byte[] status = ascii(STATUS_TEXT + "VmRSS:\t" + MAX + " kB\n");
        refused("VmRSS out of range: " + MAX, () -> StatusParser.parse(FILE, status, status.length));
        byte[] flat = ascii("anon " + MAX + "\n");
        refused("anon out of range: " + MAX, () -> FlatKeyedParser.parse(FILE, flat, flat.length));
        byte[] smaps = ascii("00400000-00401000 r-xp 00000000 08:01 42 /bin/job\nRss: " + MAX + " kB\n");
        refused("Rss out of range: " + MAX, () -> SmapsParser.parseSmaps(FILE, smaps, smaps.length));
    }
}
