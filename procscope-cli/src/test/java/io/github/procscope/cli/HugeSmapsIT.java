package io.github.procscope.cli;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.github.procscope.testing.Spawned;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.BufferedWriter;
import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Random;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code maps PID} on a 100 MB {@code smaps} (what a process of about 100,000 mappings has) in a fixture root,
 * the tool's JVM held to a 64 MiB heap: the regions are answered, or the file is refused in one line; never an
 * {@code OutOfMemoryError}. The time each run took is printed; the test waits for the tool with a generous
 * deadline only, so that a loaded machine does not fail it.
 */
class HugeSmapsIT {
    private static final long SIZE = 100L << 20;
    private static final String[] KEYS = {"Rss", "Pss", "Pss_Dirty", "Pss_Anon", "Pss_File", "Pss_Shmem",
        "Shared_Clean", "Shared_Dirty", "Private_Clean", "Private_Dirty", "Referenced", "Anonymous", "KSM", "LazyFree",
        "AnonHugePages", "ShmemPmdMapped", "FilePmdMapped", "Shared_Hugetlb", "Private_Hugetlb", "Swap", "SwapPss",
        "Locked"};

    @TempDir
    Path tmp;

    /**
     * Writes {@code smaps} of 100 MB: regions that share nothing (each its own file, every counter different), the
     * worst case for memory, laid out as the kernel prints them.
     *
     * @return how many regions, and their summed Rss in kB
     */
    private static long[] writeDistinctRegions(Path smaps) throws IOException {
        Random random = new Random(42);
        long address = 0x7f0000000000L;
        long regions = 0;
        long rssKb = 0;
        long written = 0;
        try (BufferedWriter w = Files.newBufferedWriter(smaps, StandardCharsets.US_ASCII)) {
            while (written < SIZE) {
                long pages = 1_000 + random.nextInt(99_000);
                long end = address + pages * 4096;
                StringBuilder b = new StringBuilder(1100);
                b.append(Long.toHexString(address)).append('-').append(Long.toHexString(end))
                        .append(" rw-p 00000000 08:01 ").append(1000 + regions).append("          /data/shard-")
                        .append(String.format(Locale.ROOT, "%07d", regions)).append(".bin\n");
                b.append(String.format(Locale.ROOT, "Size:           %8d kB%nKernelPageSize:        4 kB%n"
                        + "MMUPageSize:           4 kB%n", pages * 4));
                long rss = (pages / 2 + random.nextInt((int) (pages / 2))) * 4;
                for (String key : KEYS) {
                    long v = switch (key) {
                        case "Rss" -> rss;
                        case "Pss" -> rss / 4 / 4 * 4;
                        default -> random.nextInt((int) pages) * 4L;
                    };
                    b.append(String.format(Locale.ROOT, "%-16s%8d kB%n", key + ":", v));
                }
                b.append("THPeligible:    0\nVmFlags: rd wr mr mw me ac sd \n");
                w.write(b.toString());
                written += b.length();
                rssKb += rss;
                regions++;
                address = end + 4096;
            }
        }
        return new long[] {regions, rssKb};
    }

    private record Run(int status, List<String> out, String err, long millis) {
    }

    /** Runs the tool in a JVM of its own with a 64 MiB heap, its output in files. */
    private Run tool(String... args) throws Exception {
        Path out = tmp.resolve("out");
        Path err = tmp.resolve("err");
        try (Spawned spawned = new Spawned()) {
            ProcessBuilder b = Spawned.javaCommand(List.of("-Xmx64m"), ProcscopeCli.class, args)
                    .redirectOutput(out.toFile()).redirectError(err.toFile());
            long start = System.nanoTime();
            Process p = spawned.start(b);
            assertTrue(p.waitFor(300, TimeUnit.SECONDS), "the tool ended"); // a hang, not a slow machine
            long millis = (System.nanoTime() - start) / 1_000_000;
            return new Run(p.exitValue(), Files.readAllLines(out), Files.readString(err), millis);
        }
    }

    @Test
    void aHundredMegabyteSmapsIsAnsweredWithinA64MiBHeap() throws Exception {
        try (MachineFixture m = MachineFixture.create()) {
            long[] written = writeDistinctRegions(m.proc().resolve("4100/smaps"));
            Run table = tool("--procfs-root", m.proc().toString(), "maps", "4100");
            System.out.printf("maps on a %d MB smaps of %d regions, -Xmx64m: exit %d in %d ms (JVM start included)%n",
                    Files.size(m.proc().resolve("4100/smaps")) >> 20, written[0], table.status(), table.millis());
            assertEquals(ProcscopeCli.OK, table.status(), table.err());
            assertEquals("", table.err());
            // the header, a line per region, the total, a blank line and the totals of smaps_rollup
            assertEquals(written[0] + 4, table.out().size());
            String total = table.out().get((int) written[0] + 1);
            assertTrue(total.startsWith("total kB"), total);
            assertEquals(Long.toString(written[1]), total.strip().split("\\s+")[3], total);

            Path json = tmp.resolve("out");
            Run doc = tool("--procfs-root", m.proc().toString(), "--json", "maps", "4100");
            System.out.printf("--json maps on the same smaps, -Xmx64m: exit %d in %d ms%n", doc.status(), doc.millis());
            assertEquals(ProcscopeCli.OK, doc.status(), doc.err());
            long regions = 0;
            try (JsonParser p = new ObjectMapper().getFactory().createParser(json.toFile())) {
                while (p.nextToken() != null) {
                    if (p.currentToken() == JsonToken.FIELD_NAME && "regions".equals(p.currentName())) {
                        assertEquals(JsonToken.START_ARRAY, p.nextToken());
                        while (p.nextToken() == JsonToken.START_OBJECT) {
                            regions++;
                            p.skipChildren();
                        }
                        break;
                    }
                }
            }
            assertEquals(written[0], regions);
        }
    }

    @Test
    void aHundredMegabyteSmapsThatIsNoSmapsIsOneLine() throws Exception {
        try (MachineFixture m = MachineFixture.create()) {
            Path smaps = m.proc().resolve("4100/smaps");
            List<String> lines = new ArrayList<>();
            // One line of 100 MB of zeros, as a copy of /dev/zero would give.
            try (RandomAccessFile f = new RandomAccessFile(smaps.toFile(), "rw")) {
                f.setLength(SIZE);
            }
            Run zeros = tool("--procfs-root", m.proc().toString(), "maps", "4100");
            System.out.printf("maps on 100 MB of zeros, -Xmx64m: exit %d in %d ms%n", zeros.status(), zeros.millis());
            lines.add(zeros.err());
            assertEquals(ProcscopeCli.KERNEL_DATA, zeros.status(), zeros.err());
            assertTrue(zeros.err().contains("has a line longer than 64 KiB"), zeros.err());

            // 100 MB of counters without a region header.
            try (BufferedWriter w = Files.newBufferedWriter(smaps, StandardCharsets.US_ASCII)) {
                for (long n = 0; n < SIZE; n += 20) {
                    w.write("Rss:           4 kB\n");
                }
            }
            Run headless = tool("--procfs-root", m.proc().toString(), "maps", "4100");
            System.out.printf("maps on 100 MB of counters, -Xmx64m: exit %d in %d ms%n", headless.status(),
                    headless.millis());
            lines.add(headless.err());
            assertEquals(ProcscopeCli.KERNEL_DATA, headless.status(), headless.err());
            assertTrue(headless.err().contains("expected a region header line"), headless.err());

            for (String err : lines) {
                assertEquals(1, err.lines().count(), err);
                assertTrue(err.startsWith("procscope maps: "), err);
                assertTrue(err.contains(smaps.toString()), err);
                assertFalse(err.contains("OutOfMemoryError"), err);
            }
        }
    }
}
