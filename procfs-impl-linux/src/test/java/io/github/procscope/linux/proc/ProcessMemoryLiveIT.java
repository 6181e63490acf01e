package io.github.procscope.linux.proc;

import io.github.procscope.api.Procscope;
import io.github.procscope.api.core.NoSuchProcessException;
import io.github.procscope.api.core.Pids;
import io.github.procscope.api.memory.MemoryMaps;
import io.github.procscope.api.memory.MemoryRegion;
import io.github.procscope.api.memory.MemoryTotals;
import io.github.procscope.api.memory.ProcessMemory;
import io.github.procscope.api.memory.RegionKind;
import io.github.procscope.api.memory.SmapsCounters;
import io.github.procscope.api.memory.TotalsSource;
import io.github.procscope.testing.Commands;
import io.github.procscope.testing.ScriptedProcess;
import io.github.procscope.testing.Spawned;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/** {@link LinuxProcessMemory} against processes this test starts, cross-checked with {@code ps} and {@code pmap}. */
class ProcessMemoryLiveIT {
    private static final long MIB = 1 << 20;
    private final LinuxProcessMemory memory = LinuxProcessMemory.at(Path.of("/proc"), () -> LinuxProcfs.at(Path.of("/proc")));

    @Test
    void reservingVszIsNotResidentUntilTouched() {
        try (Spawned spawned = new Spawned()) {
            ScriptedProcess p = ScriptedProcess.start(spawned);
            p.send("pid");
            MemoryTotals before = memory.totals(p.pid());
            assertEquals(TotalsSource.ROLLUP, before.source());

            p.send("reserve 300");
            MemoryTotals reserved = memory.totals(p.pid());
            assertTrue(reserved.vszBytes() - before.vszBytes() >= 300 * MIB,
                    "VSZ grew by " + (reserved.vszBytes() - before.vszBytes()));
            assertTrue(reserved.rssBytes() - before.rssBytes() < 10 * MIB,
                    "RSS grew by " + (reserved.rssBytes() - before.rssBytes()));
            agreesWithPsAndPmap(p.pid(), reserved);

            p.send("touch 80");
            MemoryTotals touched = memory.totals(p.pid());
            long grown = touched.rssBytes() - reserved.rssBytes();
            System.out.printf("reserve 300 MiB: VSZ +%d RSS +%d bytes; touch 80 MiB: RSS +%d bytes%n",
                    reserved.vszBytes() - before.vszBytes(), reserved.rssBytes() - before.rssBytes(), grown);
            assertTrue(Math.abs(grown - 80 * MIB) <= 4 * MIB, "RSS grew by " + grown + " bytes, not 80 MiB +- 5%");
            assertTrue(touched.ussBytes() - reserved.ussBytes() >= 76 * MIB, "the touched pages are private");
            assertEquals(reserved.vszBytes(), touched.vszBytes(), "touching reserves nothing more");
            agreesWithPsAndPmap(p.pid(), touched);

            MemoryRegion region = memory.maps(p.pid()).regions().stream()
                    .filter(r -> r.sizeBytes() == 300 * MIB).findFirst().orElseThrow();
            assertEquals(RegionKind.ANONYMOUS, region.kind());
            assertEquals("rw-p", region.permissions().toString());
        }
    }

    /** The same figures as ps -o vsz,rss and the total line of pmap -x, read while the helper is idle. */
    private void agreesWithPsAndPmap(long pid, MemoryTotals totals) {
        String[] ps = Commands.run("ps", "-o", "vsz=,rss=", "-p", Long.toString(pid)).trim().split("\\s+");
        assertEquals(Long.parseLong(ps[0]) * 1024, totals.vszBytes(), "VSZ as ps shows it");
        long psRss = Long.parseLong(ps[1]) * 1024;
        assertTrue(Math.abs(psRss - totals.rssBytes()) <= MIB,
                "RSS " + totals.rssBytes() + " vs ps " + psRss + " (ps reads the kernel's approximate counters)");

        MemoryMaps smaps = memory.smaps(pid);
        String[] lines = Commands.run("pmap", "-x", Long.toString(pid)).trim().split("\n");
        String[] total = lines[lines.length - 1].trim().split("\\s+");
        System.out.printf("pid %d: ps vsz %s rss %s kB; pmap -x total %s %s %s kB; ours VSZ %d RSS %d PSS %d USS %d"
                        + " bytes, smaps mapped %d RSS %d bytes%n", pid, ps[0], ps[1], total[2], total[3], total[4],
                totals.vszBytes(), totals.rssBytes(), totals.pssBytes(), totals.ussBytes(), smaps.mappedBytes(),
                smaps.usageTotals().orElseThrow().rssBytes());
        assertEquals("total", total[0], lines[lines.length - 1]);
        assertEquals(Long.parseLong(total[2]) * 1024, smaps.mappedBytes(), "pmap's Kbytes total");
        SmapsCounters sum = smaps.usageTotals().orElseThrow();
        assertEquals(Long.parseLong(total[3]) * 1024, sum.rssBytes(), "pmap's RSS total");
        assertEquals(Long.parseLong(total[4]) * 1024, sum.sharedDirtyBytes() + sum.privateDirtyBytes(), "pmap's Dirty");
        assertEquals(smaps.vszBytes(), totals.vszBytes(), "summed regions without [vsyscall] give VSZ");
        assertEquals(sum.rssBytes(), totals.rssBytes(), "smaps and smaps_rollup agree on an idle process");
    }

    @Test
    void rollupAndSummedSmapsAgreeOnALiveProcess() {
        try (Spawned spawned = new Spawned()) {
            ScriptedProcess p = ScriptedProcess.start(spawned);
            p.send("reserve 64");
            p.send("touch 16");
            MemoryTotals rolled = memory.totals(p.pid(), true);
            MemoryTotals summed = memory.totals(p.pid(), false);
            assertEquals(TotalsSource.ROLLUP, rolled.source());
            assertEquals(TotalsSource.SUMMED_SMAPS, summed.source());
            assertEquals(rolled.vszBytes(), summed.vszBytes());
            assertEquals(rolled.rssBytes(), summed.rssBytes());
            assertEquals(rolled.ussBytes(), summed.ussBytes());
            assertEquals(rolled.swapBytes(), summed.swapBytes());
            assertEquals(rolled.counters().anonymousBytes(), summed.counters().anonymousBytes());
            assertEquals(rolled.counters().sharedCleanBytes(), summed.counters().sharedCleanBytes());
            // PSS is rounded down to a kB per region in smaps but once in the rollup; other processes mapping the
            // same libraries meanwhile move it a little too.
            int regions = memory.maps(p.pid()).regions().size();
            long diff = rolled.pssBytes() - summed.pssBytes();
            assertTrue(Math.abs(diff) <= regions * 1024L + 256 * 1024, "PSS differs by " + diff);
            assertTrue(rolled.counters().pssAnonBytes().isPresent() || rolled.counters().pssAnonBytes().isEmpty());
        }
    }

    @Test
    void aZombieHasNoAddressSpace() throws Exception {
        try (Spawned spawned = new Spawned()) {
            Process sh = spawned.start("sh", "-c",
                    "p=$$; (until [ \"$(cat /proc/$p/comm)\" != sh ]; do sleep 0.01; done;"
                    + " exec sleep 0) & exec sleep 60");
            long[] zombie = new long[1];
            Spawned.await(Duration.ofSeconds(30), "a zombie child", () -> sh.toHandle().children().anyMatch(c -> {
                try {
                    String stat = Files.readString(Path.of("/proc/" + c.pid() + "/stat"));
                    if (stat.substring(stat.lastIndexOf(')') + 2).startsWith("Z")) {
                        zombie[0] = c.pid();
                        return true;
                    }
                } catch (IOException e) {
                    return false;
                }
                return false;
            }));
            assertEquals(List.of(), memory.maps(zombie[0]).regions());
            assertEquals(List.of(), memory.smaps(zombie[0]).regions());
            MemoryTotals t = memory.totals(zombie[0]);
            assertEquals(SmapsCounters.ZERO, t.counters());
            assertEquals(0, t.vszBytes());
        }
    }

    @Test
    void ownProcessHasHeapStackAndLibraries() {
        MemoryMaps own = memory.smaps(ProcessHandle.current().pid());
        assertTrue(own.regions().stream().anyMatch(r -> r.kind() == RegionKind.FILE
                && r.pathname().orElse("").contains("libjvm.so")));
        assertTrue(own.regions().stream().anyMatch(r -> r.kind() == RegionKind.STACK));
        assertTrue(own.usageTotals().orElseThrow().rssBytes() > 10 * MIB);
        // The kernel writes a long smaps in several reads and resumes each at the last address it wrote, so the
        // regions come in address order; a region of this running JVM may grow between two reads, so only the
        // start addresses are compared.
        for (int i = 1; i < own.regions().size(); i++) {
            assertTrue(Long.compareUnsigned(own.regions().get(i - 1).startAddress(), own.regions().get(i).startAddress()) < 0,
                    "regions are in address order");
        }
    }

    @Test
    void aPidThatIsNotInUseIsNoSuchProcess() throws Exception {
        // Files.readString would read /proc/sys files one byte at a time, and sysctl files end after the first read
        long pidMax;
        try (var in = Files.newInputStream(Path.of("/proc/sys/kernel/pid_max"))) {
            pidMax = Long.parseLong(new String(in.readNBytes(64), StandardCharsets.US_ASCII).trim());
        }
        long unused = Math.min(pidMax, Pids.PID_MAX_LIMIT); // pids stay below pid_max
        NoSuchProcessException e = assertThrows(NoSuchProcessException.class, () -> memory.maps(unused));
        assertEquals(unused, e.pid());
        assertThrows(NoSuchProcessException.class, () -> memory.smaps(unused));
        assertThrows(NoSuchProcessException.class, () -> memory.totals(unused));
    }

    @Test
    void kernelThreadsHaveZeroTotalsWhereVisible() throws Exception {
        Optional<Long> kthread = Optional.empty();
        for (long pid : LinuxProcfs.listNumeric(Path.of("/proc"))) {
            try {
                String stat = Files.readString(Path.of("/proc/" + pid + "/stat"));
                String[] f = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
                if ((Long.parseLong(f[6]) & 0x200000L) != 0) {
                    kthread = Optional.of(pid);
                    break;
                }
            } catch (IOException gone) {
                // exited meanwhile
            }
        }
        assumeTrue(kthread.isPresent(), "no kernel thread visible in this pid namespace");
        MemoryTotals t = memory.totals(kthread.get());
        assertEquals(SmapsCounters.ZERO, t.counters());
        assertEquals(List.of(), memory.maps(kthread.get()).regions());
    }

    @Test
    void serviceLoaderFindsTheLinuxImplementation() {
        assertInstanceOf(LinuxProcessMemory.class, Procscope.system().memory());
    }
}
