package io.github.procscope.linux.proc;

import io.github.procscope.testing.ScriptedProcess;
import io.github.procscope.testing.Spawned;
import io.github.procscope.testing.Unprivileged;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * What a user without root's rights sees: a JVM running as {@code nobody} reads the memory and descriptors
 * of a root process this test starts and gets typed errors, never partial results; the system-wide scan
 * says it could not read everything.
 */
class UnprivilegedAccessLiveIT {
    @Test
    void anotherUsersProcessIsRefusedWithATypedError() throws Exception {
        assumeTrue(Unprivileged.available(), "needs root and setpriv to drop to nobody");
        try (Spawned spawned = new Spawned()) {
            ScriptedProcess target = ScriptedProcess.start(spawned);
            target.send("reserve 8");
            Process reader = spawned.start(Unprivileged.java(UnprivilegedReader.class, Long.toString(target.pid()))
                    .redirectErrorStream(true));
            String out = new String(reader.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            assertTrue(reader.waitFor(120, TimeUnit.SECONDS), "the reader finished");
            assertEquals(0, reader.exitValue(), out);
            Map<String, String> lines = new HashMap<>();
            for (String line : out.split("\n")) {
                int sp = line.indexOf(' ');
                if (sp > 0) {
                    lines.put(line.substring(0, sp), line.substring(sp + 1));
                }
            }
            for (String call : new String[] {"maps", "smaps", "totals", "fds"}) {
                String r = lines.get(call);
                assertTrue(r != null && r.startsWith("ProcessAccessDeniedException: permission denied reading /proc/"
                        + target.pid() + "/"), call + " -> " + r + "\n" + out);
            }
            assertEquals("regions", lines.get("own-maps"), "its own maps are readable: " + out);
            assertEquals("complete=false unreadable=has-pid", lines.get("scan"), out);
        }
    }
}
