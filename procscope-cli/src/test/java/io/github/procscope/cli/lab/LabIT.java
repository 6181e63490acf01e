package io.github.procscope.cli.lab;

import io.github.procscope.api.Procscope;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.github.procscope.api.process.ProcessState;
import io.github.procscope.api.process.ProcessTable;
import io.github.procscope.testing.Commands;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The whole lab, run for real: every file, every number of lab.json, and nothing left running. */
class LabIT {
    private static final long MIB = 1L << 20;

    @Test
    void theEightStepsWriteTheirEvidence(@TempDir Path tmp) throws Exception {
        Path out = tmp.resolve("out");
        Path scratch = Files.createDirectories(tmp.resolve("scratch"));
        boolean tmpfs = "root".equals(System.getProperty("user.name"));
        if (tmpfs) {
            // A file system of our own, so that nobody else's writes move its free space during step 6.
            Commands.run("mount", "-t", "tmpfs", "-o", "size=128m", "tmpfs", scratch.toString());
        }
        try {
            new Lab(out, scratch, Procscope.system().processes()).run();
        } finally {
            if (tmpfs) {
                Commands.run("umount", scratch.toString());
            }
        }

        for (String f : List.of("01-tree.txt", "02-threads.txt", "03-zombie.txt", "04-orphan.txt", "05-memory.txt",
                "06-deleted.txt", "07-signal.txt", "08-notes.md", "lab.json")) {
            assertTrue(Files.size(out.resolve(f)) > 0, f + " is written");
        }
        JsonNode j = new ObjectMapper().readTree(out.resolve("lab.json").toFile());

        assertEquals(ProcessHandle.current().pid(), j.get("pid").asLong());
        assertEquals(ProcessHandle.current().parent().orElseThrow().pid(), j.get("ppid").asLong());
        assertTrue(read(out, "01-tree.txt").contains("this process: pid " + ProcessHandle.current().pid()));

        String threads = read(out, "02-threads.txt");
        assertEquals(4, j.get("workerThreads").asInt());
        assertTrue(j.get("tasks").asInt() >= 5, "the main thread and four workers at least");
        for (int i = 1; i <= 4; i++) {
            assertTrue(threads.contains("lab-worker-" + i), threads);
        }
        String taskList = threads.substring(threads.indexOf("/task shows"), threads.indexOf("\n\n", threads.indexOf("/task shows")));
        assertEquals(j.get("tasks").asInt(), taskList.lines().count() - 1, "one line per task:\n" + taskList);

        assertTrue(j.get("zombiePid").asLong() > 0);
        assertTrue(read(out, "03-zombie.txt").contains(j.get("zombiePid").asText() + " "));
        assertTrue(read(out, "03-zombie.txt").matches("(?s).*\\s" + j.get("zombiePid").asLong() + "\\s+"
                + j.get("parentPid").asLong() + " Z .*"), read(out, "03-zombie.txt"));

        assertNotEquals(j.get("ppidBefore").asLong(), j.get("ppidAfter").asLong());
        assertEquals(Procscope.system().processes().process(1).comm(), j.get("pid1Comm").asText());

        long vszGrowth = j.get("vszAfterReserveBytes").asLong() - j.get("vszBeforeBytes").asLong();
        long rssOnReserve = j.get("rssAfterReserveBytes").asLong() - j.get("rssBeforeBytes").asLong();
        long rssOnTouch = j.get("rssAfterTouchBytes").asLong() - j.get("rssAfterReserveBytes").asLong();
        assertTrue(vszGrowth >= 300 * MIB, "VSZ grew by the reservation: " + vszGrowth);
        assertTrue(rssOnReserve < 10 * MIB, "reserving touches nothing: " + rssOnReserve);
        assertTrue(Math.abs(rssOnTouch - 80 * MIB) <= 4 * MIB, "touching 80 MiB makes 80 MiB resident: " + rssOnTouch);

        long before = j.get("availableBeforeBytes").asLong();
        long created = j.get("availableAfterCreateBytes").asLong();
        long deleted = j.get("availableAfterDeleteBytes").asLong();
        long ended = j.get("availableAfterHolderEndsBytes").asLong();
        long slack = tmpfs ? MIB : 32 * MIB;
        assertTrue(Math.abs(before - created - 64 * MIB) <= slack, "creating took 64 MiB: " + (before - created));
        assertTrue(Math.abs(deleted - created) <= slack, "deleting returned nothing: " + (deleted - created));
        assertTrue(Math.abs(ended - before) <= slack, "the holder's end returned it: " + (ended - before));
        assertTrue(j.get("deletedFdLine").asText().endsWith("big.bin (deleted)"), j.get("deletedFdLine").asText());
        assertTrue(read(out, "06-deleted.txt").contains("(deleted)"));

        assertTrue(j.get("aliveAfterTerm").asBoolean(), "TERM was survived");
        assertEquals(137, j.get("exitStatus").asInt());
        assertTrue(read(out, "07-signal.txt").contains("SIGKILL"), read(out, "07-signal.txt"));

        String notes = read(out, "08-notes.md");
        assertTrue(notes.contains("좀비") && notes.contains("RSS") && notes.contains("참조"), notes);
        assertTrue(notes.lines().filter(l -> l.startsWith("- ")).count() >= 3, notes);

        for (String pid : List.of("helperPid", "parentPid", "orphanPid", "holderPid", "signalHelperPid")) {
            long p = j.get(pid).asLong();
            // Ended: gone, or a zombie waiting for its adopter (a PID 1 that is not an init never reaps it).
            boolean over = Procscope.system().processes().find(p).map(i -> i.state() == ProcessState.ZOMBIE).orElse(true);
            assertTrue(over, pid + " " + p + " was ended");
        }
    }

    private static String read(Path dir, String name) throws java.io.IOException {
        return Files.readString(dir.resolve(name), StandardCharsets.UTF_8);
    }
}
