package io.github.procscope.linux.parse;

import io.github.procscope.testing.Fixtures;

import io.github.procscope.api.core.DeviceNumber;
import io.github.procscope.api.core.ProcfsParseException;
import io.github.procscope.api.memory.MemoryMaps;
import io.github.procscope.api.memory.MemoryRegion;
import io.github.procscope.api.memory.RegionKind;
import org.junit.jupiter.api.Test;

import java.nio.file.Path;
import java.util.List;
import java.util.Optional;

import static io.github.procscope.testing.Fixtures.ascii;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.quicktheories.QuickTheory.qt;
import static org.quicktheories.generators.SourceDSL.arbitrary;
import static org.quicktheories.generators.SourceDSL.integers;
import static org.quicktheories.generators.SourceDSL.longs;
import static org.quicktheories.generators.SourceDSL.strings;

class MapsParserTest {
    private static final Path SOURCE = Path.of("/proc/1/maps");

    private static List<MemoryRegion> fixture() {
        byte[] b = Fixtures.bytes("files/maps/deleted-escaped");
        return MapsParser.parse(SOURCE, b, b.length);
    }

    @Test
    void readsEveryLineWithAddressesPermissionsOffsetDeviceAndInode() {
        List<MemoryRegion> r = fixture();
        assertEquals(20, r.size());
        MemoryRegion text = r.get(1);
        assertEquals(0x55d5c8a02000L, text.startAddress());
        assertEquals(0x55d5c8a06000L, text.endAddress());
        assertEquals(0x4000, text.sizeBytes());
        assertEquals("r-xp", text.permissions().toString());
        assertTrue(text.permissions().read() && text.permissions().execute());
        assertFalse(text.permissions().write() || text.permissions().shared());
        assertEquals(0x2000, text.offsetBytes());
        assertEquals(new DeviceNumber(0xfe, 0), text.device());
        assertEquals(260875, text.inode());
        assertEquals(Optional.of("/usr/bin/sleep"), text.pathname());
        assertEquals(RegionKind.FILE, text.kind());
        assertFalse(text.deleted());
        assertTrue(text.usage().isEmpty());
        // hexadecimal device numbers above 255 and offsets above 32 bits
        assertEquals(new DeviceNumber(0x103, 2), r.get(15).device());
        assertEquals(0x100000000L, r.get(12).offsetBytes());
    }

    @Test
    void deletedMarkIsRemovedFromThePathAndReported() {
        List<MemoryRegion> r = fixture();
        MemoryRegion data = r.get(9);
        assertEquals(Optional.of("/tmp/data file.bin"), data.pathname(), "spaces inside the path are kept");
        assertTrue(data.deleted());
        assertEquals(RegionKind.FILE, data.kind());
        assertFalse(r.get(0).deleted());
    }

    @Test
    void escapedNewlineInAPathIsUnescaped() {
        assertEquals(Optional.of("/tmp/line\nbreak"), fixture().get(10).pathname());
    }

    @Test
    void kindsFollowThePathColumn() {
        List<MemoryRegion> r = fixture();
        assertEquals(RegionKind.HEAP, r.get(3).kind());
        assertEquals(RegionKind.ANONYMOUS, r.get(4).kind());
        assertEquals(Optional.empty(), r.get(4).pathname());
        assertEquals(RegionKind.SHARED_MEMORY, r.get(6).kind(), "/dev/zero (deleted) is shared anonymous memory");
        assertEquals(RegionKind.SHARED_MEMORY, r.get(7).kind(), "System V segment");
        assertEquals(RegionKind.SHARED_MEMORY, r.get(8).kind(), "memfd");
        assertEquals(RegionKind.SHARED_MEMORY, r.get(11).kind(), "POSIX shared memory");
        assertEquals(RegionKind.DEVICE, r.get(12).kind());
        assertEquals(RegionKind.NAMED_ANONYMOUS, r.get(13).kind());
        assertEquals(RegionKind.SPECIAL, r.get(14).kind());
        assertEquals(RegionKind.STACK, r.get(16).kind());
        assertEquals(RegionKind.VVAR, r.get(17).kind());
        assertEquals(RegionKind.VDSO, r.get(18).kind());
        assertEquals(RegionKind.VSYSCALL, r.get(19).kind());
        assertTrue(r.get(6).permissions().shared());
    }

    @Test
    void addressesAboveTheSignedRangeAreKeptAsUnsignedBits() {
        MemoryRegion vsyscall = fixture().get(19);
        assertEquals("ffffffffff600000", Long.toHexString(vsyscall.startAddress()));
        assertEquals(4096, vsyscall.sizeBytes());
    }

    @Test
    void vszLeavesOutTheVsyscallPageThatPmapCounts() {
        MemoryMaps maps = new MemoryMaps(1, fixture());
        assertEquals(maps.mappedBytes() - 4096, maps.vszBytes());
        long sum = 0;
        for (MemoryRegion m : maps.regions()) {
            sum += m.sizeBytes();
        }
        assertEquals(sum, maps.mappedBytes());
    }

    @Test
    void emptyFileHasNoRegions() {
        assertEquals(List.of(), MapsParser.parse(SOURCE, new byte[0], 0));
    }

    @Test
    void malformedLinesFailNamingFileAndLine() {
        String[] bad = {
            "55d5c8a00000 r--p 00000000 fe:00 1 /x\n",
            "55d5c8a02000-55d5c8a00000 r--p 00000000 fe:00 1 /x\n",
            "1000-2000 rwzp 00000000 fe:00 1 /x\n",
            "1000-2000 r--q 00000000 fe:00 1 /x\n",
            "1000-2000 r--p 00000000 fe00 1 /x\n",
            "1000-2000 r--p 00000000 fffff:00 1 /x\n",
            "1000-2000 r--p 00000000 fe:00 x /x\n",
            "1000-2000 r--p 00000000 fe:00 12/x\n",
            "11111111111111111-2000 r--p 0 0:0 0\n",
        };
        for (String s : bad) {
            byte[] b = ascii(s);
            ProcfsParseException e = assertThrows(ProcfsParseException.class, () -> MapsParser.parse(SOURCE, b, b.length), s);
            assertTrue(e.getMessage().contains("/proc/1/maps"), e.getMessage());
            assertEquals(s.substring(0, s.length() - 1), e.line());
        }
    }

    @Test
    void arbitraryLinesBuiltFromMapsCharactersFailOnlyWithAParseException() {
        qt().forAll(strings().basicLatinAlphabet().ofLengthBetween(0, 120)).checkAssert(s -> {
            String line = "7f00-7f01 rw-p 0 00:00 0 " + s + "\n" + s;
            byte[] b = ascii(line);
            try {
                MapsParser.parse(SOURCE, b, b.length);
            } catch (ProcfsParseException expected) {
                // the only failure allowed
            }
        });
    }

    @Test
    void generatedLinesRoundTrip() {
        qt().forAll(longs().between(0, 0x7fff_ffff_f000L), integers().between(1, 1 << 20),
                integers().between(0, 15), arbitrary().pick(List.of("", "/usr/lib/libz.so.1", "/tmp/a b",
                        "[heap]", "/x\nnewline", "/gone (deleted)")))
                .checkAssert((start, pages, perm, name) -> {
                    long end = start + pages * 4096L;
                    String perms = ((perm & 1) != 0 ? "r" : "-") + ((perm & 2) != 0 ? "w" : "-")
                            + ((perm & 4) != 0 ? "x" : "-") + ((perm & 8) != 0 ? "s" : "p");
                    String escaped = name.replace("\n", "\\012");
                    String line = Long.toHexString(start) + "-" + Long.toHexString(end) + " " + perms + " "
                            + Long.toHexString(start / 7) + " 08:11 " + pages + " ";
                    line = escaped.isEmpty() ? line : String.format("%-73s%s", line, escaped);
                    byte[] b = ascii(line + "\n");
                    MemoryRegion r = MapsParser.parse(SOURCE, b, b.length).get(0);
                    assertEquals(start, r.startAddress());
                    assertEquals(end, r.endAddress());
                    assertEquals(perms, r.permissions().toString());
                    assertEquals(start / 7, r.offsetBytes());
                    assertEquals(new DeviceNumber(8, 0x11), r.device());
                    assertEquals((long) pages, r.inode());
                    boolean deleted = name.endsWith(" (deleted)");
                    assertEquals(deleted, r.deleted());
                    String plain = deleted ? name.substring(0, name.length() - " (deleted)".length()) : name;
                    assertEquals(plain.isEmpty() ? Optional.empty() : Optional.of(plain), r.pathname());
                });
    }
}
