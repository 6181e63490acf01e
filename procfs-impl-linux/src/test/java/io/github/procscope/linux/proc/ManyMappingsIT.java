package io.github.procscope.linux.proc;

import io.github.procscope.api.memory.MemoryMaps;
import io.github.procscope.api.memory.MemoryRegion;
import io.github.procscope.api.memory.MemoryTotals;
import io.github.procscope.api.memory.SmapsCounters;
import io.github.procscope.api.memory.TotalsSource;
import io.github.procscope.testing.Commands;
import io.github.procscope.testing.NativeHelpers;
import io.github.procscope.testing.Spawned;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * A real process with 100,000 mappings (its {@code smaps} is about 70 MB): read whole and correctly, region by
 * region, both as a list and streamed, and in agreement with the kernel's own rollup and with {@code pmap -x}.
 * The kernel allows 65,530 mappings by default; the test raises {@code vm.max_map_count} for as long as the
 * helper takes to map them, and puts it back (the helper keeps its mappings).
 */
class ManyMappingsIT {
    private static final int MAPPINGS = 100_000;
    private static final Path MAX_MAP_COUNT = Path.of("/proc/sys/vm/max_map_count");

    private final LinuxProcessMemory memory = LinuxProcessMemory.at(Path.of("/proc"), () -> LinuxProcfs.at(Path.of("/proc")));

    private static long readMaxMapCount() throws IOException {
        try (var in = Files.newInputStream(MAX_MAP_COUNT)) {
            return Long.parseLong(new String(in.readNBytes(32), StandardCharsets.US_ASCII).strip());
        }
    }

    /** Starts the helper with {@link #MAPPINGS} mappings; returns {@code [first address, pid]}. */
    private static long[] startHelper(Spawned spawned) throws IOException {
        long before = readMaxMapCount();
        boolean raise = before < MAPPINGS + 1_000;
        assumeTrue(!raise || Files.isWritable(MAX_MAP_COUNT), "vm.max_map_count is " + before
                + " and this user cannot raise it");
        if (raise) {
            Files.writeString(MAX_MAP_COUNT, Long.toString(MAPPINGS * 2L));
        }
        try {
            Process p = spawned.start(NativeHelpers.executable("many_mappings").toString(), Integer.toString(MAPPINGS));
            String[] line = Spawned.readLine(p, Duration.ofSeconds(120)).strip().split(" ");
            return new long[] {Long.parseUnsignedLong(line[0], 16), Long.parseLong(line[1])};
        } finally {
            if (raise) {
                Files.writeString(MAX_MAP_COUNT, Long.toString(before));
            }
        }
    }

    @Test
    void aProcessWithAHundredThousandMappingsReadsRegionByRegion() throws Exception {
        try (Spawned spawned = new Spawned()) {
            long[] started = startHelper(spawned);
            long base = started[0];
            long pid = started[1];
            long page = Long.parseLong(Commands.run("getconf", "PAGESIZE").strip());
            long end = base + MAPPINGS * page;

            MemoryMaps smaps = memory.smaps(pid);
            List<MemoryRegion> mine = new ArrayList<>();
            for (MemoryRegion r : smaps.regions()) {
                if (Long.compareUnsigned(r.startAddress(), base) >= 0 && Long.compareUnsigned(r.endAddress(), end) <= 0) {
                    mine.add(r);
                }
            }
            assertEquals(MAPPINGS, mine.size(), "one region per page of the helper's mapping");
            for (int i = 0; i < MAPPINGS; i++) {
                MemoryRegion r = mine.get(i);
                assertEquals(base + i * page, r.startAddress(), "region " + i);
                assertEquals(page, r.sizeBytes(), "region " + i);
                assertEquals(i % 2 == 0 ? "r--p" : "rw-p", r.permissions().toString(), "region " + i);
                SmapsCounters c = r.usage().orElseThrow().counters();
                long touched = i % 3 == 0 ? page : 0;
                assertEquals(touched, c.rssBytes(), "region " + i + " is resident exactly when it was touched");
                assertEquals(touched, c.privateDirtyBytes(), "region " + i);
                assertEquals(touched, c.anonymousBytes(), "region " + i);
            }

            // The same regions streamed, none kept by the reader.
            long[] streamed = new long[2];
            memory.forEachRegion(pid, r -> {
                streamed[0]++;
                streamed[1] += r.usage().orElseThrow().counters().rssBytes();
            });
            SmapsCounters sum = smaps.usageTotals().orElseThrow();
            assertEquals(smaps.regions().size(), streamed[0]);
            assertEquals(sum.rssBytes(), streamed[1]);
            assertEquals(smaps.regions().size(), memory.maps(pid).regions().size(), "maps and smaps agree");

            // The kernel's own sum over every region: the helper is idle, so the figures hold still.
            MemoryTotals rollup = memory.totals(pid);
            assertEquals(TotalsSource.ROLLUP, rollup.source());
            assertEquals(rollup.rssBytes(), sum.rssBytes(), "Rss summed over the regions, as smaps_rollup");
            assertEquals(rollup.swapBytes(), sum.swapBytes(), "Swap summed over the regions, as smaps_rollup");
            assertEquals(rollup.ussBytes(), sum.privateCleanBytes() + sum.privateDirtyBytes(),
                    "Private_Clean + Private_Dirty summed, as smaps_rollup");

            // pmap -x: the same regions, address by address, and the same totals.
            String[] lines = Commands.run("pmap", "-x", Long.toString(pid)).split("\n");
            List<Long> pmapStarts = new ArrayList<>();
            for (String line : lines) {
                String[] f = line.strip().split("\\s+");
                if (f.length >= 6 && f[0].matches("[0-9a-f]{16}")) {
                    pmapStarts.add(Long.parseUnsignedLong(f[0], 16));
                }
            }
            List<Long> ours = smaps.regions().stream().map(MemoryRegion::startAddress).toList();
            assertEquals(pmapStarts, ours, "pmap -x lists the same regions");
            String[] total = lines[lines.length - 1].strip().split("\\s+");
            assertEquals("total", total[0], lines[lines.length - 1]);
            assertEquals(Long.parseLong(total[2]) * 1024, smaps.mappedBytes(), "pmap's Kbytes total");
            assertEquals(Long.parseLong(total[3]) * 1024, sum.rssBytes(), "pmap's RSS total");
            assertEquals(Long.parseLong(total[4]) * 1024, sum.sharedDirtyBytes() + sum.privateDirtyBytes(),
                    "pmap's Dirty total");
            System.out.printf("%d mappings: %d regions in smaps, RSS %d bytes (rollup %d), pmap total %s kB%n",
                    MAPPINGS, smaps.regions().size(), sum.rssBytes(), rollup.rssBytes(), total[2]);
        }
    }
}
