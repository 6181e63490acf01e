package io.github.procscope.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.Test;

import java.nio.file.Files;
import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

class DoctorCommandTest {
    private static final ObjectMapper JSON = new ObjectMapper();

    @Test
    void hostileFixtureReportsTheZombieAsJsonAndExitsOne() throws Exception {
        Path kmsg = Files.createTempFile("kmsg", ".txt");
        try {
            Files.writeString(kmsg, "6,1,100,-;Linux version 6.18\n");
            CliRun r = CliRun.of("--procfs-root", CliRun.fixtureProc().toString(), "--json", "doctor", "--window", "0s",
                    "--kmsg", kmsg.toString(), "--hangup-min-age", "0s");
            assertEquals(1, r.status(), r.err());
            JsonNode findings = JSON.readTree(r.out()).get("findings");
            JsonNode zombie = null;
            for (JsonNode f : findings) {
                assertTrue(f.has("kind") && f.has("severity") && f.has("pids") && f.has("summary") && f.has("evidence")
                        && f.has("advice"), f.toString());
                if (f.get("kind").asText().equals("ZOMBIE")) {
                    zombie = f;
                }
            }
            assertEquals(300, zombie.get("evidence").get("zombiePids").get(0).asLong());
            assertEquals("WARNING", zombie.get("severity").asText());
        } finally {
            Files.deleteIfExists(kmsg);
        }
    }

    @Test
    void malformedWindowIsBadUsage() {
        CliRun r = CliRun.of("doctor", "--window", "soon");
        assertEquals(2, r.status());
        assertTrue(r.err().contains("not a duration"), r.err());
        assertEquals(2, CliRun.of("doctor", "--window", "-3s").status());
    }

    @Test
    void theEvidenceIsReadableLinesNotJson() throws Exception {
        Path kmsg = Files.createTempFile("kmsg", ".txt");
        try {
            Files.writeString(kmsg, "6,1,100,-;Linux version 6.18\n");
            CliRun r = CliRun.of("--procfs-root", CliRun.fixtureProc().toString(), "doctor", "--window", "0s",
                    "--kmsg", kmsg.toString(), "--hangup-min-age", "0s");
            assertEquals(1, r.status(), r.err());
            java.util.List<String> lines = r.out().lines().toList();
            int zombie = lines.indexOf(lines.stream().filter(l -> l.contains("ZOMBIE")).findFirst().orElseThrow());
            java.util.List<String> after = lines.subList(zombie, lines.size());
            int evidence = after.indexOf("         evidence:");
            assertTrue(evidence > 0, r.out());
            assertTrue(after.get(evidence + 1).matches(" {11}parent pid: \\d+"), after.get(evidence + 1));
            assertTrue(after.stream().anyMatch(l -> l.matches(" {11}zombie pids: 300(, \\d+)*")), r.out());
            for (String l : lines) {
                assertFalse(l.contains("{") || l.contains("=\""), "no JSON in the table: " + l);
            }
        } finally {
            Files.deleteIfExists(kmsg);
        }
    }

    @Test
    void aNestedRecordIsIndentedAndItsTimeIsWhole() {
        var kill = new io.github.procscope.api.diagnose.OomKill(4121, "python3",
                java.util.Optional.of(java.time.Instant.parse("2026-12-04T22:31:11.123456Z")),
                java.util.OptionalLong.of(8L << 30), java.util.OptionalLong.of(3L << 30), java.util.OptionalLong.empty(),
                java.util.OptionalLong.empty(), java.util.OptionalLong.of(1000), true,
                java.util.Optional.of("/user.slice/train"), java.util.Optional.empty());
        java.util.List<String> lines = DoctorCommand.evidence(new io.github.procscope.api.diagnose.Evidence.OomKilled(kill,
                java.util.OptionalLong.of(2)));
        assertEquals(java.util.List.of("kill:", "  pid: 4121", "  comm: python3", "  time: 2026-12-04T22:31:11.123456Z",
                "  total vm: 8.0G", "  anon rss: 3.0G", "  uid: 1000", "  memory cgroup: true",
                "  cgroup: /user.slice/train", "cgroup oom kills: 2"), lines);
    }
}
