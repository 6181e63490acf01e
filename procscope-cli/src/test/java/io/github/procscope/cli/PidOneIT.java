package io.github.procscope.cli;

import io.github.procscope.testing.Spawned;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * {@code procscope run} as PID 1 of a PID namespace (a container's entrypoint) reaps every orphan like an init,
 * and the JVM's own {@code Process} children keep their exit statuses meanwhile. Needs root and
 * {@code unshare} (util-linux).
 */
class PidOneIT {
    @BeforeAll
    static void rootAndUnshare() throws Exception {
        assumeTrue("root".equals(System.getProperty("user.name")), "needs root to make a PID namespace");
        Process p = new ProcessBuilder("unshare", "--pid", "--fork", "--mount-proc", "true")
                .redirectErrorStream(true).start();
        p.getInputStream().readAllBytes();
        assumeTrue(p.waitFor(30, TimeUnit.SECONDS) && p.exitValue() == 0, "unshare --pid works here");
    }

    private static List<String> inNamespace(Class<?> main, String... args) throws Exception {
        List<String> cmd = new ArrayList<>(List.of("unshare", "--pid", "--fork", "--mount-proc"));
        cmd.addAll(Spawned.javaCommand(List.of("--enable-native-access=ALL-UNNAMED"), main, args).command());
        try (Spawned spawned = new Spawned()) {
            Process p = spawned.start(new ProcessBuilder(cmd).redirectError(ProcessBuilder.Redirect.INHERIT));
            String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            assertTrue(p.waitFor(120, TimeUnit.SECONDS), "ended");
            return List.of(String.valueOf(p.exitValue()), out);
        }
    }

    @Test
    void asPidOneRunLeavesNoZombieOfAHundredOrphans() throws Exception {
        // 50 orphans stay in the job's session, 50 leave it (setsid): the latter are no member of the job, only
        // an init reaps them. The job counts the zombies of the namespace after they have all ended.
        String job = "for i in $(seq 50); do (sleep 0.3 &); (setsid sleep 0.3 &); done; sleep 4;"
                + " z=0; for f in /proc/[0-9]*/stat; do s=$(cut -d' ' -f3 \"$f\" 2>/dev/null);"
                + " [ \"$s\" = Z ] && z=$((z+1)); done; echo \"pid1=$(cut -d' ' -f2 /proc/1/stat) zombies=$z\"; exit 6";
        List<String> r = inNamespace(ProcscopeCli.class, "run", "--interval", "50ms", "--", "sh", "-c", job);
        assertEquals("6", r.get(0), r.get(1));
        assertTrue(r.get(1).contains("pid1=(java) zombies=0"), r.get(1));
    }

    @Test
    void theJvmsOwnProcessChildrenKeepTheirStatusesWhileOrphansAreReaped() throws Exception {
        List<String> r = inNamespace(PidOneProbe.class);
        assertEquals("0", r.get(0), r.get(1));
        assertTrue(r.get(1).contains("statuses-wrong 0\n"), r.get(1));
        assertTrue(r.get(1).contains("zombies 0\n"), r.get(1));
        assertTrue(r.get(1).contains("job 0\n"), r.get(1));
    }
}
