package io.github.procscope.api.disk;

import io.github.procscope.api.core.DeviceNumber;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.OptionalInt;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.quicktheories.QuickTheory.qt;
import static org.quicktheories.generators.SourceDSL.longs;

class FileSystemUsageTest {
    private static MountInfo mount(String type) {
        return new MountInfo(27, 1, new DeviceNumber(254, 0), "/", "/", List.of("rw"), List.of(), type, "/dev/vda",
                List.of("rw"));
    }

    private static FileSystemUsage fs(long size, long free, long avail, long inodes, long inodesFree) {
        return new FileSystemUsage(mount("ext4"), 4096, size, free, avail, inodes, inodesFree, false);
    }

    @Test
    void usedIsSizeMinusFreeIncludingTheReserve() {
        // the figures of `df -B1 /` on a machine whose root file system keeps a large reserve
        FileSystemUsage f = fs(270553174016L, 247330193408L, 85722255360L, 16777216, 16371266);
        assertEquals(23222980608L, f.usedBytes());
        assertEquals(OptionalInt.of(22), f.usePercent(), "23222980608 / (23222980608 + 85722255360) = 21.3% -> 22%");
        assertEquals(405950, f.inodesUsed());
        assertEquals(OptionalInt.of(3), f.inodeUsePercent(), "2.42% rounds up to 3%");
    }

    @Test
    void percentIsRoundedUpAndExactOnlyWhenExact() {
        assertEquals(OptionalInt.of(50), FileSystemUsage.percent(50, 50));
        assertEquals(OptionalInt.of(51), FileSystemUsage.percent(501, 499));
        assertEquals(OptionalInt.of(1), FileSystemUsage.percent(1, 1_000_000));
        assertEquals(OptionalInt.of(0), FileSystemUsage.percent(0, 10));
        assertEquals(OptionalInt.of(100), FileSystemUsage.percent(10, 0));
        assertEquals(OptionalInt.of(100), FileSystemUsage.percent(999_999, 1), "df rounds 99.9999% up to 100%");
        assertEquals(OptionalInt.empty(), FileSystemUsage.percent(0, 0), "df prints '-'");
    }

    @Test
    void hugeFileSystemsDoNotOverflow() {
        long used = Long.MAX_VALUE / 2;
        assertEquals(OptionalInt.of(50), FileSystemUsage.percent(used, used));
        assertEquals(OptionalInt.of(100), FileSystemUsage.percent(Long.MAX_VALUE / 50, 1));
    }

    @Test
    void percentMatchesExactRationalCeiling() {
        qt().forAll(longs().between(0, 1L << 50), longs().between(0, 1L << 50)).checkAssert((used, avail) -> {
            OptionalInt p = FileSystemUsage.percent(used, avail);
            if (used + avail == 0) {
                assertTrue(p.isEmpty());
                return;
            }
            java.math.BigInteger u100 = java.math.BigInteger.valueOf(used).multiply(java.math.BigInteger.valueOf(100));
            java.math.BigInteger[] qr = u100.divideAndRemainder(java.math.BigInteger.valueOf(used + avail));
            int expected = qr[0].intValueExact() + (qr[1].signum() != 0 ? 1 : 0);
            assertEquals(expected, p.getAsInt());
        });
    }

    @Test
    void pseudoFileSystemsAreRecognisedByTypeOrByHavingNoBlocks() {
        assertTrue(new FileSystemUsage(mount("proc"), 4096, 0, 0, 0, 0, 0, false).isPseudo());
        assertTrue(new FileSystemUsage(mount("fuse.whatever"), 4096, 0, 0, 0, 0, 0, false).isPseudo());
        assertFalse(fs(1 << 20, 1 << 19, 1 << 19, 10, 5).isPseudo());
        assertFalse(new FileSystemUsage(mount("tmpfs"), 4096, 1 << 20, 1 << 20, 1 << 20, 10, 5, false).isPseudo());
    }

    @Test
    void negativeFiguresAreRefused() {
        assertThrows(IllegalArgumentException.class, () -> fs(-1, 0, 0, 0, 0));
        assertThrows(IllegalArgumentException.class, () -> new FileSystemUsage(mount("ext4"), 0, 1, 1, 1, 1, 1, false));
    }
}
