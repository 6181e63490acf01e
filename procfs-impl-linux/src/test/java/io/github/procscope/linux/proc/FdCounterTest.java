package io.github.procscope.linux.proc;

import io.github.procscope.linux.sys.FileStatus;

import org.junit.jupiter.api.Test;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** When the size of {@code /proc/PID/fd} may stand for its listing ({@link FdCounter}). */
class FdCounterTest {
    private static final int DIR = FileStatus.S_IFDIR;

    private static FdCounter of(String uid, String capEff) {
        return FdCounter.fromStatus(List.of("Name:\tjava", "Uid:\t" + uid, "Gid:\t0\t0\t0\t0", "CapEff:\t" + capEff));
    }

    @Test
    void theFileSystemUidDecidesAndCapabilitiesBypass() {
        FdCounter user = of("1000\t1000\t1000\t1001", "0000000000000000");
        assertTrue(user.bySize());
        assertEquals(-1, user.count(7, 1000, DIR | 0500), "owned by the real and effective uid, not the fs uid");
        assertEquals(7, user.count(7, 1001, DIR | 0500));
        assertEquals(-1, user.count(7, 1001, DIR | 0400), "no search permission: listing is denied");
        assertEquals(-1, user.count(7, 0, DIR | 0500), "another user's (or a non-dumpable) process");

        FdCounter root = of("0\t0\t0\t0", "000001ffffffffff");
        assertEquals(7, root.count(7, 1000, DIR | 0500));
        FdCounter rootWithoutDac = of("0\t0\t0\t0", "0000000000000000");
        assertEquals(-1, rootWithoutDac.count(7, 1000, DIR | 0500), "root without CAP_DAC_*: denied like anyone");
        assertEquals(7, of("5\t5\t5\t5", "0000000000000004").count(7, 1000, DIR | 0500), "CAP_DAC_READ_SEARCH");
        assertEquals(7, of("5\t5\t5\t5", "0000000000000002").count(7, 1000, DIR | 0500), "CAP_DAC_OVERRIDE");
    }

    @Test
    void aSizeOfZeroOrOutOfRangeOrNotADirectoryIsListed() {
        FdCounter root = of("0\t0\t0\t0", "000001ffffffffff");
        assertEquals(-1, root.count(0, 0, DIR | 0500), "an older kernel, or no descriptor");
        assertEquals(-1, root.count(-1, 0, DIR | 0500));
        assertEquals(-1, root.count(1L << 40, 0, DIR | 0500));
        assertEquals(-1, root.count(7, 0, FileStatus.S_IFREG | 0500));
        assertEquals(Integer.MAX_VALUE, root.count(Integer.MAX_VALUE, 0, DIR | 0500));
    }

    @Test
    void malformedCredentialsMeanListing() {
        assertFalse(FdCounter.fromStatus(List.of("Name:\tx")).bySize());
        assertFalse(of("0\t0\t0", "0").bySize(), "three ids");
        assertFalse(of("0\t0\t0\tx", "0").bySize());
        assertFalse(of("0\t0\t0\t0", "zz").bySize());
        assertFalse(of("0\t0\t0\t0", "-1").bySize());
        assertFalse(FdCounter.LISTING.mayList(0, 0777));
    }
}
