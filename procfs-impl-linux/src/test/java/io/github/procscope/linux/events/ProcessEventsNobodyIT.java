package io.github.procscope.linux.events;

import io.github.procscope.api.core.ProcessKey;
import io.github.procscope.api.events.EventSource;
import io.github.procscope.api.events.EventSubscription;
import io.github.procscope.api.events.EventType;
import io.github.procscope.api.events.ProcessEvent;
import io.github.procscope.linux.proc.LinuxProcfs;
import io.github.procscope.testing.Spawned;
import io.github.procscope.testing.Unprivileged;
import org.junit.jupiter.api.Test;

import java.nio.file.Path;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * As {@code nobody} (a child JVM through {@code setpriv}), a subscription with the default source falls back
 * from the process connector and names the capability it lacks; a watched tree gets pidfds, with exit status.
 */
public class ProcessEventsNobodyIT {
    /** Runs as nobody: prints key=value lines. */
    public static final class Probe {
        public static void main(String[] args) throws Exception {
            LinuxProcfs proc = LinuxProcfs.at(Path.of("/proc"));
            LinuxProcessEvents events = LiveEvents.of(proc);
            System.out.println("uid=" + new String(java.nio.file.Files.readAllBytes(java.nio.file.Path.of("/proc/self/status")),
                    StandardCharsets.UTF_8).lines().filter(l -> l.startsWith("Uid:")).findFirst().orElse("?")
                    .split("\\s+")[1]);
            try (EventSubscription all = events.subscribe(e -> { }, Duration.ofMillis(50))) {
                System.out.println("allSource=" + all.source());
                System.out.println("allReason=" + all.fallbackReason().orElse(""));
            }
            ProcessEventsIT.Collector c = new ProcessEventsIT.Collector();
            ProcessKey self = proc.process(ProcessHandle.current().pid(), Set.of()).key();
            try (EventSubscription tree = events.subscribeTree(self, c, Duration.ofMillis(50))) {
                System.out.println("treeSource=" + tree.source());
                System.out.println("treeReason=" + tree.fallbackReason().orElse(""));
                // The child ends only once the watch has it: one that ends before the watch's next look at the
                // children lists (every 50 ms, later on a loaded machine) is never seen, as the source documents.
                Process p = new ProcessBuilder("sh", "-c", "read x; exit 3").start();
                c.await(e -> e.type() == EventType.FORK && e.pid() == p.pid(), "fork");
                p.getOutputStream().write('\n');
                p.getOutputStream().close();
                System.out.println("waitFor=" + p.waitFor());
                ProcessEvent exit = c.await(e -> e.type() == EventType.EXIT && e.pid() == p.pid(), "exit");
                System.out.println("exitCode=" + exit.exitCode().orElse(-1));
                System.out.println("exitSource=" + exit.source());
            }
            System.out.flush();
        }
    }

    @Test
    void nobodysSubscriptionFallsBackAndSaysWhy() throws Exception {
        assumeTrue(Unprivileged.available(), "needs root and setpriv to switch to nobody");
        try (Spawned spawned = new Spawned()) {
            Process p = spawned.start(Unprivileged.java(Probe.class).redirectError(ProcessBuilder.Redirect.DISCARD));
            String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            assertTrue(p.waitFor(60, TimeUnit.SECONDS), "probe finished");
            assertEquals(0, p.exitValue(), out);
            Map<String, String> kv = out.lines().filter(l -> l.contains("=")).collect(Collectors.toMap(
                    l -> l.substring(0, l.indexOf('=')), l -> l.substring(l.indexOf('=') + 1), (a, b) -> a));
            assertEquals("65534", kv.get("uid"), out);
            assertNotEquals(EventSource.NETLINK.name(), kv.get("allSource"), out);
            assertEquals(EventSource.SNAPSHOT_DIFF.name(), kv.get("allSource"), out);
            assertTrue(kv.get("allReason").contains("lacks CAP_NET_ADMIN"), out);
            assertEquals(EventSource.PIDFD.name(), kv.get("treeSource"), out);
            assertTrue(kv.get("treeReason").contains("lacks CAP_NET_ADMIN"), out);
            assertEquals("3", kv.get("waitFor"), "the JDK still got its child's status: " + out);
            assertEquals("3", kv.get("exitCode"), out);
            assertEquals("PIDFD", kv.get("exitSource"), out);
        }
    }
}
