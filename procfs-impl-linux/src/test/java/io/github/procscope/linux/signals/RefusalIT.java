package io.github.procscope.linux.signals;

import io.github.procscope.testing.Spawned;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * pid 0, -1, {@code Integer.MIN_VALUE}, process group 1, the JVM's own pid, group and enclosing tree, its
 * parent (the shell that started it) and grandparent and their groups, a kernel thread: every one refused with
 * a message, and nothing sent. The attempts run in {@link RefusalProbe}, a child
 * JVM in a session of its own whose guard records whatever reaches it.
 */
class RefusalIT {
    private final Spawned spawned = new Spawned();

    @AfterEach
    void end() {
        spawned.close();
    }

    @Test
    void forbiddenTargetsAreRefusedWithAClearMessageAndNothingIsSent() throws Exception {
        List<String> cmd = new ArrayList<>(List.of("setsid", "sh", "-c", "\"$@\"; echo probe-done", "sh"));
        cmd.addAll(Spawned.javaCommand(List.of(), RefusalProbe.class).command());
        Process p = spawned.start(new ProcessBuilder(cmd).redirectError(ProcessBuilder.Redirect.INHERIT));
        List<String> lines = new ArrayList<>();
        String line;
        do {
            line = Spawned.readLine(p, Duration.ofSeconds(120));
            lines.add(line);
        } while (!line.equals("probe-done"));
        assertTrue(p.waitFor(30, TimeUnit.SECONDS));

        assertTrue(lines.stream().noneMatch(l -> l.startsWith("SENT ")), lines.toString());
        assertTrue(lines.stream().noneMatch(l -> l.startsWith("guard refused")), lines.toString());
        List<String> refused = lines.stream().filter(l -> l.startsWith("refused ")).toList();
        boolean kernelThreads = !lines.contains("no kernel thread visible");
        assertEquals(kernelThreads ? 22 : 19, refused.size(), lines.toString());
        for (String r : refused) {
            assertTrue(r.contains("nothing was sent") || r.contains("invalid pid") || r.contains("invalid process group"),
                    "says nothing was sent, or why the id is invalid: " + r);
        }
        assertRefused(lines, "key pid 0", "invalid pid 0");
        assertRefused(lines, "key pid -1", "invalid pid -1");
        assertRefused(lines, "key pid MIN_VALUE", "invalid pid " + Integer.MIN_VALUE);
        assertRefused(lines, "group 0", "kill(0)");
        assertRefused(lines, "group -1", "invalid process group id -1");
        assertRefused(lines, "group 1", "kill(-1) means every process");
        assertRefused(lines, "own pid", "this JVM itself");
        assertRefused(lines, "own group", "this JVM");
        assertRefused(lines, "stop tree of parent", "an ancestor of this JVM");
        assertRefused(lines, "parent", "an ancestor of this JVM");
        assertRefused(lines, "stop parent", "an ancestor of this JVM");
        assertRefused(lines, "stop exact parent", "an ancestor of this JVM");
        assertRefused(lines, "grandparent", "an ancestor of this JVM");
        assertRefused(lines, "grandparent group", "an ancestor of this JVM");
        assertRefused(lines, "stop grandparent group", "an ancestor of this JVM");
        if (kernelThreads) {
            assertRefused(lines, "stop kernel thread", "a kernel thread");
            assertRefused(lines, "stop tree of kernel thread", "a kernel thread");
            assertRefused(lines, "kernel thread", "a kernel thread");
        }
        // Only the one send that was explicitly allowed reached the probe.
        assertTrue(lines.contains("allowed self: DELIVERED"), lines.toString());
        assertTrue(lines.contains("arrivals [WINCH]"), lines.toString());
    }

    private static void assertRefused(List<String> lines, String what, String fragment) {
        String line = lines.stream().filter(l -> l.startsWith("refused " + what + ": ")).findFirst()
                .orElseThrow(() -> new AssertionError("no refusal of " + what + " in " + lines));
        assertTrue(line.contains(fragment), line);
    }
}
