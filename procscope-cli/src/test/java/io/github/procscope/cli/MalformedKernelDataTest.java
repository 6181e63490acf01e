package io.github.procscope.cli;

import org.junit.jupiter.api.Test;

import java.nio.file.Files;
import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A malformed kernel file is the kernel's (or the tree's) fault, not the user's: its own exit status, one
 * line naming file and field; in a listing, the one bad process is left out and counted, the rest shown.
 */
class MalformedKernelDataTest {
    private static Path machineWithABadVsize() throws Exception {
        MachineFixture m = MachineFixture.create();
        Path stat = m.proc().resolve("4102/stat");
        String line = Files.readString(stat).replace(" 21474836480 ", " 18446744073709551615 ");
        Files.writeString(stat, line);
        return m.proc();
    }

    @Test
    void aListingLeavesTheBadProcessOutAndCountsIt() throws Exception {
        Path proc = machineWithABadVsize();
        for (String view : new String[] {"ps", "tree"}) {
            CliRun r = CliRun.of("--procfs-root", proc.toString(), view);
            assertEquals(ProcscopeCli.OK, r.status(), r.err());
            assertTrue(r.out().contains("4101"), r.out());
            assertFalse(r.out().contains("4102 "), r.out());
            assertEquals("procscope " + view + ": 1 process(es) left out: their kernel files are malformed"
                    + " (--verbose names them)\n", r.err());
        }
        CliRun verbose = CliRun.of("--procfs-root", proc.toString(), "--verbose", "ps");
        assertTrue(verbose.err().contains("  pid 4102: cannot parse " + proc.resolve("4102/stat")
                + ": vsize (field 23) out of range: 18446744073709551615"), verbose.err());
        CliRun json = CliRun.of("--procfs-root", proc.toString(), "--json");
        assertTrue(json.out().contains("\"unreadable\" : [ {"), json.out());
        assertTrue(json.out().contains("\"pid\" : 4102"), json.out());
    }

    @Test
    void theBadProcessAskedForByItselfExitsFourWithOneLine() throws Exception {
        Path proc = machineWithABadVsize();
        CliRun r = CliRun.of("--procfs-root", proc.toString(), "signals", "4102");
        assertEquals(ProcscopeCli.KERNEL_DATA, r.status(), r.err());
        assertEquals(1, r.err().lines().count(), r.err());
        assertTrue(r.err().contains(proc.resolve("4102/stat") + ": vsize (field 23) out of range"), r.err());
    }
}
