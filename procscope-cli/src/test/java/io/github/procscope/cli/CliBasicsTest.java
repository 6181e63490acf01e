package io.github.procscope.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

class CliBasicsTest {
    private static final ObjectMapper JSON = new ObjectMapper();

    private static String root() {
        return CliRun.fixtureProc().toString();
    }

    @Test
    void psJsonHasTheContractFields() throws Exception {
        CliRun r = CliRun.of("--procfs-root", root(), "--json", "ps");
        assertEquals(0, r.status(), r.err());
        JsonNode doc = JSON.readTree(r.out());
        assertEquals(List.of("processes", "leftOut", "unreadable"), fieldNames(doc));
        assertEquals(0, doc.get("leftOut").asInt());
        assertEquals(0, doc.get("unreadable").size());
        JsonNode arr = doc.get("processes");
        assertEquals(11, arr.size());
        JsonNode bash = arr.get(3);
        assertEquals(100, bash.get("pid").asLong());
        assertEquals(List.of("pid", "ppid", "uid", "user", "state", "comm", "threads", "rssBytes", "vszBytes",
                "lifetimeCpuPercent", "startTime", "elapsedSeconds", "cpuTimeSeconds", "cgroup", "container", "slurm",
                "systemdUnit"), fieldNames(bash));
        assertEquals("SLEEPING", bash.get("state").asText());
        assertEquals(1100 * 4096, bash.get("rssBytes").asLong());
        assertEquals("2025-12-02T10:40:10Z", bash.get("startTime").asText());
        assertEquals(990.5, bash.get("elapsedSeconds").asDouble(), 1e-9);
        assertEquals(3.0, bash.get("cpuTimeSeconds").asDouble(), 1e-9);
        assertEquals(0.3, bash.get("lifetimeCpuPercent").asDouble(), 1e-9);
        assertEquals("a) (b c", arr.get(4).get("comm").asText());
    }

    @Test
    void psSortsFiltersAndGroups() throws Exception {
        JsonNode byRss = JSON.readTree(CliRun.of("--procfs-root", root(), "--json", "ps", "--sort=-rss").out()).get("processes");
        assertEquals(1, byRss.get(0).get("pid").asLong(), "systemd's 12000 KiB is the largest");
        JsonNode zombies = JSON.readTree(CliRun.of("--procfs-root", root(), "--json", "ps", "--state", "Z").out()).get("processes");
        assertEquals(1, zombies.size());
        assertEquals(300, zombies.get(0).get("pid").asLong());
        JsonNode two = JSON.readTree(CliRun.of("--procfs-root", root(), "--json", "ps", "--pid", "200,201").out()).get("processes");
        assertEquals(2, two.size());
        JsonNode users = JSON.readTree(CliRun.of("--procfs-root", root(), "--json", "ps", "--by-user").out()).get("groups");
        assertEquals(1, users.size(), "the fixture tree has one owner");
        assertEquals(11, users.get(0).get("processes").asLong());
    }

    @Test
    void psTableFitsEightyColumnsAndEscapesNewlines() {
        CliRun r = CliRun.of("--procfs-root", root(), "ps");
        assertEquals(0, r.status(), r.err());
        for (String line : r.out().split("\n")) {
            assertTrue(line.length() <= 80, "too wide: " + line);
        }
        assertTrue(r.out().contains("new\\nline"), r.out());
        assertTrue(r.out().contains("Ssl+"), "bash is a session leader with threads in the foreground: " + r.out());
    }

    @Test
    void treeAndThreadsOfTheFixture() throws Exception {
        JsonNode t = JSON.readTree(CliRun.of("--procfs-root", root(), "--json", "tree", "100").out());
        assertEquals(100, t.get("pid").asLong());
        assertEquals((1100 + 200 + 2) * 4096L, t.get("subtreeRssBytes").asLong());
        assertEquals(3, t.get("children").size());
        JsonNode th = JSON.readTree(CliRun.of("--procfs-root", root(), "--json", "threads", "100").out());
        assertEquals("worker-1", th.get(1).get("name").asText());
        assertEquals(List.of("tid", "name", "state", "cpuTimeSeconds"), fieldNames(th.get(1)), "every column of the table");
    }

    @Test
    void badInputGivesOneLineAndTheRightStatus() {
        assertBad(2, "ps", "--pid", "0");
        assertBad(2, "ps", "--pid", "abc");
        assertBad(2, "ps", "--sort", "bogus");
        assertBad(2, "nosuchcommand");
        assertBad(2, "--procfs-root", "/nonexistent/dir", "ps");
        assertBad(2, "--procfs-root", "/etc", "ps");
        assertBad(1, "threads", "4194000");
        assertBad(1, "--procfs-root", root(), "tree", "4242");
    }

    private static void assertBad(int status, String... args) {
        CliRun r = CliRun.of(args);
        assertEquals(status, r.status(), String.join(" ", args) + " -> " + r.err());
        String err = r.err().strip();
        assertFalse(err.isEmpty(), "says why");
        assertEquals(1, err.lines().count(), "one line: " + err);
        assertFalse(err.contains("\tat "), "no stack trace");
        assertTrue(err.startsWith("procscope"), err);
    }

    private static List<String> fieldNames(JsonNode n) {
        List<String> out = new java.util.ArrayList<>();
        n.fieldNames().forEachRemaining(out::add);
        return out;
    }
}
