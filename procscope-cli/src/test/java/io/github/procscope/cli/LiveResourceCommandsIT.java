package io.github.procscope.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.github.procscope.testing.Commands;
import io.github.procscope.testing.ScriptedProcess;
import io.github.procscope.testing.Spawned;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.Random;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * Memory, file and disk subcommands on this machine, each cross-checked with the classic tool where it exists
 * ({@code pmap}, {@code free}, {@code df}, {@code du}), on processes and files this test makes.
 */
class LiveResourceCommandsIT {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final long MIB = 1L << 20;

    private final Spawned spawned = new Spawned();

    @TempDir
    Path tmp;

    @AfterEach
    void end() {
        spawned.close();
    }

    private static JsonNode json(String... args) {
        CliRun r = CliRun.of(args);
        assertEquals(0, r.status(), String.join(" ", args) + ": " + r.err());
        try {
            return JSON.readTree(r.out());
        } catch (IOException e) {
            throw new AssertionError("not JSON: " + r.out(), e);
        }
    }

    @Test
    void mapsShowsAReservationInVszButNotInRssAndAgreesWithPmap() {
        ScriptedProcess p = ScriptedProcess.start(spawned);
        String pid = Long.toString(p.pid());
        JsonNode before = json("--json", "maps", pid).get("totals");
        String address = p.send("reserve 300");
        JsonNode after = json("--json", "maps", pid);
        JsonNode t = after.get("totals");
        assertTrue(t.get("vszBytes").asLong() - before.get("vszBytes").asLong() >= 300 * MIB, t.toString());
        assertTrue(t.get("rssBytes").asLong() - before.get("rssBytes").asLong() < 10 * MIB, t.toString());
        boolean found = false;
        for (JsonNode r : after.get("regions")) {
            if (Long.parseUnsignedLong(r.get("startAddress").asText(), 16) == Long.parseUnsignedLong(address.replace("0x", ""), 16)) {
                found = true;
                assertEquals(300 * MIB, r.get("sizeBytes").asLong(), r.toString());
                assertEquals("ANONYMOUS", r.get("kind").asText());
                assertTrue(r.get("pathname").isNull(), "absent, not an empty string");
            }
        }
        assertTrue(found, "the reservation at " + address + " is listed");
        if (Commands.available("pmap")) {
            String total = Commands.run("pmap", "-x", pid).lines().filter(l -> l.startsWith("total")).findFirst().orElseThrow();
            String[] f = total.trim().split("\\s+");
            long pmapKb = Long.parseLong(f[2]);
            long pmapRssKb = Long.parseLong(f[3]);
            JsonNode again = json("--json", "maps", pid);
            long mapped = 0;
            for (JsonNode r : again.get("regions")) {
                mapped += r.get("sizeBytes").asLong();
            }
            assertEquals(pmapKb * 1024, mapped, "pmap's total Kbytes, [vsyscall] included");
            assertEquals(pmapRssKb * 1024, again.get("totals").get("rssBytes").asLong(), 512 * 1024.0, "RSS vs pmap -x");
        }
        CliRun table = CliRun.of("maps", pid);
        assertTrue(table.out().contains("total kB") && table.out().contains("VSZ "), table.out());
    }

    @Test
    void fdsListsOpenFilesWithFlagsAndAgreesWithProcFd() throws IOException {
        ScriptedProcess p = ScriptedProcess.start(spawned);
        Path log = Files.writeString(tmp.resolve("train.log"), "x".repeat(1234));
        String fd = p.send("open " + log + " wronly,append,cloexec");
        JsonNode fds = json("--json", "fds", Long.toString(p.pid()));
        Set<Integer> listed = new HashSet<>();
        JsonNode entry = null;
        for (JsonNode f : fds) {
            listed.add(f.get("fd").asInt());
            if (f.get("fd").asText().equals(fd)) {
                entry = f;
            }
        }
        Set<Integer> proc = new HashSet<>();
        try (var s = Files.list(Path.of("/proc", Long.toString(p.pid()), "fd"))) {
            s.forEach(x -> proc.add(Integer.parseInt(x.getFileName().toString())));
        }
        assertEquals(proc, listed);
        assertEquals("REGULAR_FILE", entry.get("kind").asText());
        assertEquals(log.toString(), entry.get("path").asText());
        assertEquals(1234, entry.get("sizeBytes").asLong());
        assertFalse(entry.get("deleted").asBoolean());
        assertEquals("[\"O_WRONLY\",\"O_APPEND\",\"O_CLOEXEC\"]", entry.get("flags").toString().replace(",\"O_LARGEFILE\"", ""));
    }

    @Test
    void deletedFindsAFileHeldOpenAfterItsDeletionUntilTheHolderEnds() throws Exception {
        ScriptedProcess p = ScriptedProcess.start(spawned);
        Path file = tmp.resolve("old-checkpoint.pt");
        String fd = p.send("mkfile " + file + " 8");
        Files.delete(file);
        JsonNode scan = json("--json", "deleted");
        JsonNode holder = null;
        for (JsonNode h : scan.get("files")) {
            if (h.get("pid").asLong() == p.pid()) {
                holder = h;
            }
        }
        assertTrue(holder != null, scan.toString());
        assertEquals(Integer.parseInt(fd), holder.get("fd").asInt());
        assertEquals(file.toString(), holder.get("path").asText());
        assertEquals(8 * MIB, holder.get("sizeBytes").asLong());
        assertEquals("memhelper", holder.get("comm").asText());
        assertTrue(scan.get("totalAllocatedBytes").asLong() >= 8 * MIB, scan.toString());
        JsonNode fds = json("--json", "fds", Long.toString(p.pid()));
        boolean marked = false;
        for (JsonNode f : fds) {
            marked |= f.get("fd").asText().equals(fd) && f.get("deleted").asBoolean()
                    && f.get("target").asText().equals(file + " (deleted)");
        }
        assertTrue(marked, fds.toString());

        p.process().destroyForcibly();
        assertTrue(p.process().waitFor(30, java.util.concurrent.TimeUnit.SECONDS));
        JsonNode later = json("--json", "deleted");
        for (JsonNode h : later.get("files")) {
            assertFalse(h.get("pid").asLong() == p.pid(), later.toString());
        }
    }

    @Test
    void freeAgreesWithFree() {
        assumeTrue(Commands.available("free"), "free is not installed");
        JsonNode m = json("--json", "free");
        String[] mem = Commands.run("free", "-b").lines().filter(l -> l.startsWith("Mem:")).findFirst().orElseThrow()
                .trim().split("\\s+");
        assertEquals(Long.parseLong(mem[1]), m.get("totalBytes").asLong());
        assertEquals(Long.parseLong(mem[6]), m.get("availableBytes").asLong(), 256 * MIB, "available moves a little");
        assertEquals(m.get("totalBytes").asLong() - m.get("availableBytes").asLong(), m.get("usedBytes").asLong());
        for (String f : new String[] {"freeBytes", "buffersBytes", "cacheBytes", "swapTotalBytes", "swapFreeBytes"}) {
            assertTrue(m.get(f).isIntegralNumber() && m.get(f).asLong() >= 0, f);
        }
    }

    @Test
    void dfOfRootAgreesWithDf() {
        assumeTrue(Commands.available("df"), "df is not installed");
        JsonNode fs = json("--json", "df", "/").get(0);
        String[] df = Commands.run("df", "-B1", "--output=size,used,avail,pcent", "/").lines().skip(1).findFirst()
                .orElseThrow().trim().split("\\s+");
        assertEquals("/", fs.get("mountPoint").asText());
        assertEquals(Long.parseLong(df[0]), fs.get("sizeBytes").asLong());
        assertEquals(Long.parseLong(df[1]), fs.get("usedBytes").asLong(), 64 * MIB, "used moves a little");
        assertEquals(Long.parseLong(df[2]), fs.get("availableBytes").asLong(), 64 * MIB, "available moves a little");
        String[] di = Commands.run("df", "--output=itotal", "/").lines().skip(1).findFirst().orElseThrow().trim().split("\\s+");
        assertEquals(Long.parseLong(di[0]), fs.get("inodes").asLong());
        JsonNode all = json("--json", "df");
        assertTrue(all.size() >= 1);
        for (JsonNode f : all) {
            assertFalse(f.get("sizeBytes").asLong() == 0, "the default view leaves out pseudo file systems: " + f);
        }
        CliRun table = CliRun.of("df", "--inodes");
        assertTrue(table.out().startsWith("Filesystem") && table.out().contains("IUse%"), table.out());
    }

    @Test
    void duAgreesWithDuOnATreeItBuilds() throws IOException {
        assumeTrue(Commands.available("du"), "du is not installed");
        Random random = new Random(3);
        Path a = Files.createDirectories(tmp.resolve("tree/a/b"));
        Path c = Files.createDirectories(tmp.resolve("tree/c"));
        byte[] big = new byte[3 << 20];
        random.nextBytes(big);
        Files.write(a.resolve("big.bin"), big);
        Files.write(c.resolve("small.txt"), new byte[1500]);
        Files.createLink(c.resolve("big-link.bin"), a.resolve("big.bin"));
        try (var sparse = new java.io.RandomAccessFile(tmp.resolve("tree/sparse.img").toFile(), "rw")) {
            sparse.setLength(50 * MIB);
        }
        Path root = tmp.resolve("tree");
        JsonNode u = json("--json", "du", root.toString(), "--top", "2");
        assertEquals(Long.parseLong(Commands.run("du", "-sB1", root.toString()).split("\\s+")[0]), u.get("total").get("allocatedBytes").asLong());
        assertEquals(Long.parseLong(Commands.run("du", "-sb", root.toString()).split("\\s+")[0]),
                u.get("total").get("apparentBytes").asLong());
        assertEquals(2, u.get("largest").size());
        assertTrue(u.get("largest").get(0).get("allocatedBytes").asLong() >= u.get("largest").get(1).get("allocatedBytes").asLong(),
                "largest first");
        assertEquals(3, u.get("files").asLong(), "big.bin, small.txt and sparse.img: the hard link to big.bin counted once");
    }

    @Test
    void iostatSamplesEveryActiveDevice() {
        JsonNode arr = json("--json", "iostat", "100ms", "2");
        assertTrue(arr.size() % 2 == 0, arr.toString());
        Set<String> devices = new HashSet<>();
        for (JsonNode s : arr) {
            devices.add(s.get("name").asText());
            for (String f : new String[] {"readsPerSecond", "writesPerSecond", "readKilobytesPerSecond", "writeKilobytesPerSecond",
                    "readAwaitMillis", "writeAwaitMillis", "averageQueueSize", "utilizationPercent", "intervalSeconds"}) {
                assertTrue(s.get(f).isNumber() && s.get(f).asDouble() >= 0, f + " in " + s);
            }
            assertTrue(s.get("utilizationPercent").asDouble() <= 100.0 + 1e-9, s.toString());
        }
        assertEquals(arr.size() / 2, devices.size(), "each device once per report");
        JsonNode boot = json("--json", "iostat");
        for (JsonNode s : boot) {
            assertTrue(devices.contains(s.get("name").asText()) || s.get("name").asText().startsWith("loop"),
                    "the same devices: " + s);
        }
    }

    @Test
    void theOverviewDescribesThisMachine() throws IOException {
        JsonNode o = json("--json");
        String host;
        try (var in = Files.newInputStream(Path.of("/proc/sys/kernel/hostname"))) {
            host = new String(in.readNBytes(256), StandardCharsets.UTF_8).strip();
        }
        assertEquals(host, o.get("host").asText());
        assertTrue(o.get("processes").asInt() > 1);
        assertEquals(5, o.get("topByRss").size());
        assertTrue(o.get("topByRss").get(0).get("rssBytes").asLong() >= o.get("topByRss").get(4).get("rssBytes").asLong());
        assertTrue(o.get("loadAverage").get("totalTasks").asInt() >= o.get("processes").asInt() / 2, o.get("loadAverage").toString());
        assertTrue(o.get("memory").get("availableBytes").asLong() <= o.get("memory").get("totalBytes").asLong());
        assertTrue(o.get("problems").get("count").isIntegralNumber(), o.toString());
        assertTrue(o.get("gpus").has("available"));
        CliRun table = CliRun.of();
        assertEquals(0, table.status(), table.err());
        assertTrue(table.out().startsWith(host + ", up "), table.out());
        for (String line : table.out().split("\n")) {
            assertTrue(line.length() <= 80, "wider than 80 columns: '" + line + "'");
        }
    }

    @Test
    void gpuOnAMachineWithoutNvmlExitsThree() {
        assumeTrue(System.getProperty(NvmlDouble.PROPERTY) == null && System.getenv("PROCSCOPE_NVML_LIBRARY") == null);
        CliRun r = CliRun.of("--json", "gpu");
        assumeTrue(r.status() != 0, "this machine has a usable GPU");
        assertEquals(3, r.status(), r.err());
        assertFalse(readAvailable(r.out()));
    }

    private static boolean readAvailable(String out) {
        try {
            return JSON.readTree(out).get("available").asBoolean();
        } catch (IOException e) {
            throw new AssertionError(out, e);
        }
    }

}
