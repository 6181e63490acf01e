package io.github.procscope.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.Test;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A malformed kernel file is the kernel's (or the tree's) fault, not the user's: its own exit status, one
 * line naming file and field; in a listing, the one bad process is left out and counted, the rest shown.
 */
class MalformedKernelDataTest {
    private static final ObjectMapper JSON = new ObjectMapper();

    private static Path machineWithABadVsize() throws Exception {
        return machineWithABadVsize(MachineFixture.create());
    }

    private static Path machineWithABadVsize(MachineFixture m) throws Exception {
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

    /** Asserts that a view's JSON document counts the one left-out process and names it, with file and reason. */
    private static void assertLeftOutInJson(Path proc, JsonNode doc) {
        assertEquals(1, doc.get("leftOut").asInt(), doc.toString());
        JsonNode u = doc.get("unreadable");
        assertEquals(1, u.size(), doc.toString());
        assertEquals(4102, u.get(0).get("pid").asLong());
        assertEquals(proc.resolve("4102/stat").toString(), u.get(0).get("file").asText());
        assertTrue(u.get(0).get("reason").asText().contains("vsize (field 23) out of range"), u.toString());
    }

    @Test
    void psAndTreeJsonCarryTheLeftOutProcessInTheDocument() throws Exception {
        Path proc = machineWithABadVsize();
        CliRun ps = CliRun.of("--procfs-root", proc.toString(), "--json", "ps");
        assertEquals(ProcscopeCli.OK, ps.status(), ps.err());
        JsonNode doc = JSON.readTree(ps.out());
        assertLeftOutInJson(proc, doc);
        assertTrue(doc.get("processes").size() > 3, ps.out());
        doc.get("processes").forEach(p -> assertTrue(p.get("pid").asLong() != 4102, p.toString()));
        for (String by : List.of("--by-user", "--by-pod", "--by-container")) {
            CliRun grouped = CliRun.of("--procfs-root", proc.toString(), "--json", "ps", by);
            assertEquals(ProcscopeCli.OK, grouped.status(), by + ": " + grouped.err());
            JsonNode g = JSON.readTree(grouped.out());
            assertLeftOutInJson(proc, g);
            assertTrue(g.get("groups").size() >= 1, by + ": " + grouped.out());
        }

        CliRun tree = CliRun.of("--procfs-root", proc.toString(), "--json", "tree");
        assertEquals(ProcscopeCli.OK, tree.status(), tree.err());
        JsonNode t = JSON.readTree(tree.out());
        assertLeftOutInJson(proc, t);
        assertEquals(1, t.get("roots").get(0).get("pid").asLong(), tree.out());
        assertFalse(t.get("roots").toString().contains("\"pid\":4102,"), tree.out());

        CliRun sub = CliRun.of("--procfs-root", proc.toString(), "--json", "tree", "900");
        assertEquals(ProcscopeCli.OK, sub.status(), sub.err());
        JsonNode s = JSON.readTree(sub.out());
        assertEquals(900, s.get("pid").asLong());
        assertLeftOutInJson(proc, s);
    }

    @Test
    void doctorCountsTheLeftOutProcessInItsTextAndJson() throws Exception {
        MachineFixture m = MachineFixture.create();
        Path proc = machineWithABadVsize(m);
        String[] common = {"--procfs-root", proc.toString(), "--sysfs-root", m.sys().toString()};
        String[] doctor = {"doctor", "--no-gpu", "--window", "0s"};

        CliRun json = CliRun.of(concat(common, new String[] {"--json"}, doctor));
        assertTrue(json.status() == 0 || json.status() == 1, json.err());
        assertLeftOutInJson(proc, JSON.readTree(json.out()));

        CliRun text = CliRun.of(concat(common, doctor));
        assertTrue(text.out().contains("left out: 1 process(es) whose kernel files are malformed (--verbose names"
                + " them)"), text.out());
        CliRun verbose = CliRun.of(concat(common, new String[] {"--verbose"}, doctor));
        assertTrue(verbose.out().contains("left out: 1 process(es) whose kernel files are malformed:"), verbose.out());
        String flat = verbose.out().replaceAll("\\s+", " ");
        assertTrue(flat.contains("pid 4102: cannot parse " + proc.resolve("4102/stat")), verbose.out());
    }

    private static String[] concat(String[]... parts) {
        return java.util.Arrays.stream(parts).flatMap(java.util.Arrays::stream).toArray(String[]::new);
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
