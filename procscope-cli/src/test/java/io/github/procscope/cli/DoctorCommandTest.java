package io.github.procscope.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.Test;

import java.nio.file.Files;
import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertEquals;
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
}
