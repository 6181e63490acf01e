package io.github.procscope.cli.lab;

import io.github.procscope.api.Procscope;
import io.github.procscope.api.process.Facet;
import io.github.procscope.api.process.ProcessInfo;
import io.github.procscope.api.process.ProcessState;
import io.github.procscope.api.process.ProcessTable;
import io.github.procscope.api.signals.Signal;
import io.github.procscope.api.signals.Signals;
import io.github.procscope.cli.ProcscopeCli;
import io.github.procscope.testing.Spawned;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Ctrl-C in the middle of the lab: the helpers it had started are ended by pid on the way out. */
class LabInterruptIT {

    @Test
    void interruptingTheLabEndsItsHelpers(@TempDir Path tmp) throws Exception {
        Path out = tmp.resolve("out");
        ProcessTable table = Procscope.system().processes();
        try (Spawned spawned = new Spawned()) {
            Process lab = spawned.startJava(List.of(), ProcscopeCli.class, "lab", "--out", out.toString());
            Spawned.await(Duration.ofSeconds(60), "step 2 to finish", () -> Files.exists(out.resolve("02-threads.txt")));
            List<Long> helpers = helpersOf(table, lab.pid());
            assertTrue(!helpers.isEmpty(), "the lab has helpers running");

            Procscope.system().signals().send(table.key(lab.pid()), Signal.INT);   // Ctrl-C
            Spawned.await(Duration.ofSeconds(60), "the lab to exit", () -> !lab.isAlive());
            assertEquals(130, lab.exitValue(), "ended by SIGINT through its shutdown hooks: 128 + 2");
            for (long h : helpers) {
                Spawned.await(Duration.ofSeconds(30), "helper " + h + " to end", () -> table.find(h)
                        .map(p -> p.state() == ProcessState.ZOMBIE).orElse(true));
            }
            assertTrue(!Files.exists(out.resolve("lab.json")), "an interrupted lab writes no lab.json");
        }
    }

    /** Descendants of the lab JVM that are lab helpers (JVMs and shells it started). */
    private static List<Long> helpersOf(ProcessTable table, long lab) {
        var tree = table.snapshot(Set.of(Facet.CMDLINE)).tree();
        return tree.descendants(lab).stream().filter(p -> p.state() != ProcessState.ZOMBIE)
                .map(ProcessInfo::pid).toList();
    }
}
