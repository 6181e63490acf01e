package io.github.procscope.linux.parse;

import io.github.procscope.testing.Fixtures;

import io.github.procscope.api.core.ProcfsParseException;
import io.github.procscope.api.files.AccessMode;
import io.github.procscope.api.files.OpenFlag;
import io.github.procscope.api.files.OpenFlags;
import org.junit.jupiter.api.Test;

import java.nio.file.Path;
import java.util.EnumSet;
import java.util.OptionalInt;
import java.util.OptionalLong;
import java.util.Set;

import static io.github.procscope.testing.Fixtures.ascii;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.quicktheories.QuickTheory.qt;
import static org.quicktheories.generators.SourceDSL.integers;
import static org.quicktheories.generators.SourceDSL.longs;

class FdinfoParserTest {
    private static final Path SOURCE = Path.of("/proc/1/fdinfo/3");

    private static FdinfoParser.Fdinfo parse(String variant) {
        byte[] b = Fixtures.bytes("files/fdinfo/" + variant);
        return FdinfoParser.parse(SOURCE, b, b.length, OpenFlagBits.GENERIC);
    }

    @Test
    void regularFileHasPositionFlagsMountAndInode() {
        FdinfoParser.Fdinfo f = parse("regular");
        assertEquals(4096, f.position());
        assertEquals(02102002, f.flags().bits());
        assertEquals("02102002", f.flags().octal());
        assertEquals(AccessMode.READ_WRITE, f.flags().accessMode());
        assertEquals(EnumSet.of(OpenFlag.O_APPEND, OpenFlag.O_LARGEFILE, OpenFlag.O_CLOEXEC), f.flags().flags());
        assertEquals(0, f.flags().unknownBits());
        assertEquals(OptionalInt.of(27), f.mountId());
        assertEquals(OptionalLong.of(1311234), f.inode());
    }

    @Test
    void kindSpecificLinesAreSkipped() {
        FdinfoParser.Fdinfo e = parse("eventfd");
        assertEquals(EnumSet.of(OpenFlag.O_NONBLOCK, OpenFlag.O_CLOEXEC), e.flags().flags());
        FdinfoParser.Fdinfo p = parse("epoll");
        assertEquals(AccessMode.READ_WRITE, p.flags().accessMode());
        assertEquals(OptionalLong.of(1057), p.inode());
        FdinfoParser.Fdinfo i = parse("inotify-lock");
        assertEquals(AccessMode.READ_ONLY, i.flags().accessMode());
        assertEquals(Set.of(OpenFlag.O_CLOEXEC), i.flags().flags());
        assertEquals(OptionalInt.of(29), i.mountId());
    }

    @Test
    void oldKernelsHaveNoMountIdNorInode() {
        FdinfoParser.Fdinfo f = parse("3.10");
        assertEquals(OptionalInt.empty(), f.mountId());
        assertEquals(OptionalLong.empty(), f.inode());
        assertEquals(Set.of(OpenFlag.O_LARGEFILE), f.flags().flags());
    }

    @Test
    void armMovesFourFlags() {
        // O_DIRECTORY|O_NOFOLLOW|O_DIRECT|O_LARGEFILE on arm64: 040000|0100000|0200000|0400000
        OpenFlags arm = OpenFlagBits.ARM.decode(0740000);
        assertEquals(EnumSet.of(OpenFlag.O_DIRECTORY, OpenFlag.O_NOFOLLOW, OpenFlag.O_DIRECT, OpenFlag.O_LARGEFILE),
                arm.flags());
        OpenFlags generic = OpenFlagBits.GENERIC.decode(0740000);
        assertEquals(EnumSet.of(OpenFlag.O_DIRECT, OpenFlag.O_LARGEFILE, OpenFlag.O_DIRECTORY, OpenFlag.O_NOFOLLOW),
                generic.flags());
        assertEquals(OpenFlagBits.GENERIC.decode(040000).flags(), Set.of(OpenFlag.O_DIRECT));
        assertEquals(OpenFlagBits.ARM.decode(040000).flags(), Set.of(OpenFlag.O_DIRECTORY));
    }

    @Test
    void accessModeThreeAndUnknownBitsAreReported() {
        OpenFlags f = OpenFlagBits.GENERIC.decode(03 | 040000000);
        assertEquals(AccessMode.IOCTL_ONLY, f.accessMode());
        assertEquals(040000000, f.unknownBits());
    }

    @Test
    void syncImpliesDsyncAsTheKernelStoresIt() {
        OpenFlags f = OpenFlagBits.GENERIC.decode(04010001);
        assertEquals(AccessMode.WRITE_ONLY, f.accessMode());
        assertEquals(EnumSet.of(OpenFlag.O_SYNC, OpenFlag.O_DSYNC), f.flags());
    }

    @Test
    void malformedInputFails() {
        String[] bad = {"flags:\t02\n", "pos:\t0\n", "pos:\tx\nflags:\t02\n", "pos:\t0\nflags:\t089\n",
            "pos:\t0\nflags:\t0777777777777\n", "pos:\t0 1\nflags:\t02\n"};
        for (String s : bad) {
            byte[] b = ascii(s);
            assertThrows(ProcfsParseException.class, () -> FdinfoParser.parse(SOURCE, b, b.length, OpenFlagBits.GENERIC), s);
        }
    }

    @Test
    void generatedFdinfoRoundTrips() {
        qt().forAll(longs().between(0, Long.MAX_VALUE), integers().between(0, 037777777),
                integers().between(0, Integer.MAX_VALUE)).checkAssert((pos, flags, mnt) -> {
                    String s = "pos:\t" + pos + "\nflags:\t0" + Integer.toOctalString(flags) + "\nmnt_id:\t" + mnt
                            + "\nino:\t" + (pos / 3) + "\n";
                    byte[] b = ascii(s);
                    FdinfoParser.Fdinfo f = FdinfoParser.parse(SOURCE, b, b.length, OpenFlagBits.GENERIC);
                    assertEquals((long) pos, f.position());
                    assertEquals((int) flags, f.flags().bits());
                    assertEquals(OptionalInt.of(mnt), f.mountId());
                    assertEquals(OptionalLong.of(pos / 3), f.inode());
                    int rebuilt = flags & 3 | f.flags().unknownBits();
                    for (OpenFlag o : f.flags().flags()) {
                        rebuilt |= OpenFlagBits.GENERIC.bit(o);
                    }
                    assertEquals((int) flags, rebuilt, "decoding loses no bit");
                });
    }
}
