package io.github.procscope.cli;

import io.github.procscope.testing.Commands;
import io.github.procscope.testing.Spawned;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code stop} of what must not be signalled, each run by the tool as a separate process: PID 1 of a PID
 * namespace (a shell whose TERM trap writes to a file, so that anything sent would show), kthreadd, and the
 * shell that started the tool. Each is refused with exit status 2, a line saying why and that nothing was
 * sent, and the target is untouched.
 */
class StopRefusalsLiveTest {
    private final Spawned spawned = new Spawned();

    @TempDir
    Path dir;

    @AfterEach
    void end() {
        spawned.close();
    }

    private record Run(int status, String out, String err) {
    }

    private Run tool(List<String> prefix, String... args) throws Exception {
        List<String> cmd = new ArrayList<>(prefix);
        cmd.addAll(Spawned.javaCommand(List.of(), ProcscopeCli.class, args).command());
        return run(cmd);
    }

    private Run run(List<String> cmd) throws Exception {
        Path out = dir.resolve("out-" + System.nanoTime());
        Path err = dir.resolve("err-" + System.nanoTime());
        Process p = spawned.start(new ProcessBuilder(cmd).redirectOutput(out.toFile()).redirectError(err.toFile()));
        assertTrue(p.waitFor(120, TimeUnit.SECONDS), "the tool ended");
        return new Run(p.exitValue(), Files.readString(out), Files.readString(err));
    }

    @Test
    void pidOneOfANamespaceIsRefusedAndGetsNothing() throws Exception {
        assertTrue(Commands.available("unshare") && Commands.available("nsenter"), "util-linux is needed");
        Path got = dir.resolve("init-got");
        Path ready = dir.resolve("init-ready");
        // PID 1 of a new namespace: a shell that records any TERM (an init ignores signals it has no handler for).
        Process unshare = spawned.start(new ProcessBuilder("unshare", "--pid", "--fork", "--mount-proc", "--kill-child", "sh", "-c",
                "trap 'echo TERM >> " + got + "' TERM; echo up > " + ready + "; while :; do sleep 0.05; done"));
        Spawned.await(Duration.ofSeconds(30), "the namespace's init to start", () -> Files.exists(ready));
        long init = onlyChild(unshare.pid());
        List<String> enter = List.of("nsenter", "--target", Long.toString(init), "--pid", "--mount");

        Run stop = tool(enter, "stop", "1", "--grace", "1s");
        assertEquals(2, stop.status(), stop.err());
        assertTrue(stop.err().contains("pid 1") && stop.err().contains("init of this PID namespace")
                && stop.err().contains("nothing was sent"), stop.err());
        assertEquals(1, stop.err().strip().lines().count(), stop.err());
        Run tree = tool(enter, "stop", "--tree", "1", "--grace", "1s");
        assertEquals(2, tree.status(), tree.err());
        assertTrue(tree.err().contains("nothing was sent"), tree.err());
        assertFalse(tree.out().contains("All gone"), tree.out());

        Thread.sleep(300); // a TERM, had one been sent, is handled within one 50 ms sleep
        assertFalse(Files.exists(got), "the namespace's init got nothing");
        assertTrue(unshare.isAlive(), "the namespace's init still runs");
    }

    @Test
    void kthreaddIsRefused() throws Exception {
        String comm = Files.readString(Path.of("/proc/2/comm"), StandardCharsets.US_ASCII).strip();
        org.junit.jupiter.api.Assumptions.assumeTrue(comm.equals("kthreadd"), "pid 2 is kthreadd here");
        for (List<String> args : List.of(List.of("stop", "2"), List.of("stop", "--tree", "2"))) {
            Run r = tool(List.of(), args.toArray(String[]::new));
            assertEquals(2, r.status(), r.err());
            assertTrue(r.err().contains("kernel thread") && r.err().contains("nothing was sent"), r.err());
            assertFalse(r.out().contains("All gone"), r.out());
        }
    }

    @Test
    void theShellThatStartedTheToolIsRefused() throws Exception {
        Path after = dir.resolve("after");
        // $$ is the shell, the tool's parent; were it signalled, it would not live to write the file.
        List<String> cmd = new ArrayList<>(List.of("sh", "-c", "\"$@\" stop $$ --grace 1s; echo \"status $?\" > "
                + after, "sh"));
        cmd.addAll(Spawned.javaCommand(List.of(), ProcscopeCli.class).command());
        Run r = run(cmd);
        assertTrue(r.err().contains("an ancestor of this JVM") && r.err().contains("nothing was sent"), r.err());
        assertEquals("status 2", Files.readString(after).strip(), "the shell lived on; the tool said bad usage");
    }

    /** @return the first child of a process, found by parent pid (no children file: kernels may lack them) */
    private static long onlyChild(long pid) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (System.nanoTime() < deadline) {
            java.util.Optional<ProcessHandle> child = ProcessHandle.of(pid).stream()
                    .flatMap(ProcessHandle::children).findFirst();
            if (child.isPresent()) {
                return child.get().pid();
            }
            Thread.sleep(20);
        }
        throw new AssertionError("unshare " + pid + " has no child");
    }
}
