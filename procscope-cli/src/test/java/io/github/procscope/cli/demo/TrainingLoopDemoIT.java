package io.github.procscope.cli.demo;

import io.github.procscope.api.Procscope;
import io.github.procscope.api.core.ProcessKey;
import io.github.procscope.api.signals.ExitStatus;
import io.github.procscope.api.signals.StopOptions;
import io.github.procscope.api.signals.StopReport;
import io.github.procscope.testing.Spawned;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.ClosedWatchServiceException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardWatchEventKinds;
import java.nio.file.WatchEvent;
import java.nio.file.WatchKey;
import java.nio.file.WatchService;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class TrainingLoopDemoIT {
    private static final Duration TIMEOUT = Duration.ofSeconds(90);

    private final Spawned spawned = new Spawned();

    @TempDir
    Path tmp;

    @AfterEach
    void end() {
        spawned.close();
    }

    private static int lastStep(List<String> lines) {
        int last = 0;
        for (String l : lines) {
            if (l.startsWith("step ")) {
                last = Integer.parseInt(l.substring(5));
            }
        }
        return last;
    }

    @Test
    void termCheckpointsTheFinishedStepExits143AfterTheHooksAndARestartResumes() throws Exception {
        Path dir = Files.createDirectory(tmp.resolve("ckpt"));
        Path ckpt = dir.resolve("run.ckpt");
        Path out = tmp.resolve("out.txt");

        // Watch the directory: the checkpoint's name may appear (a rename) but never be written in place;
        // and whenever it exists, it reads back whole.
        List<String> events = new CopyOnWriteArrayList<>();
        List<String> damaged = new CopyOnWriteArrayList<>();
        AtomicInteger goodReads = new AtomicInteger();
        AtomicBoolean watching = new AtomicBoolean(true);
        WatchService ws = dir.getFileSystem().newWatchService();
        dir.register(ws, StandardWatchEventKinds.ENTRY_CREATE, StandardWatchEventKinds.ENTRY_MODIFY,
                StandardWatchEventKinds.ENTRY_DELETE);
        Thread watcher = new Thread(() -> {
            try {
                while (true) {
                    WatchKey k = ws.take();
                    for (WatchEvent<?> e : k.pollEvents()) {
                        events.add(e.kind().name() + " " + e.context());
                    }
                    k.reset();
                }
            } catch (InterruptedException | ClosedWatchServiceException e) {
                // done
            }
        });
        Thread reader = new Thread(() -> {
            while (watching.get()) {
                try {
                    if (TrainingLoopDemo.Checkpoint.read(ckpt).isPresent()) {
                        goodReads.incrementAndGet();
                    }
                } catch (IllegalStateException e) {
                    damaged.add(e.getMessage());
                } catch (UncheckedIOException e) {
                    // replaced between open and read: not a partial checkpoint
                }
            }
        });
        watcher.start();
        reader.start();

        List<String> cmd = Spawned.javaCommand(List.of(), HookedTraining.class, "--checkpoint", ckpt.toString(),
                "--steps", "100000", "--step-ms", "20", "--checkpoint-every", "1").command();
        long pid = spawned.startNative(out, cmd);
        Spawned.awaitLineInFile(out, TIMEOUT, "step 25"::equals);
        Procscope scope = Procscope.system();
        ProcessKey key = scope.processes().key(pid);

        StopReport report = scope.signals().stop(key, StopOptions.defaults().withGracePeriod(TIMEOUT));

        assertEquals(StopReport.Ending.TERM, report.processes().get(0).ending(), report.toString());
        assertEquals(Optional.of(ExitStatus.exited(143)), report.processes().get(0).exitStatus(),
                "exited with 143, not killed by the signal: " + report);
        assertEquals(ExitStatus.exited(143), ExitStatus.fromWaitStatus(spawned.reapNative(pid, TIMEOUT)));
        watching.set(false);
        reader.join();
        Thread.sleep(200); // let the last inotify events arrive
        ws.close();
        watcher.join();

        List<String> lines = Files.readAllLines(out);
        int k = lastStep(lines);
        assertTrue(k >= 25, lines.toString());
        int saved = lines.indexOf("checkpoint saved after step " + k);
        assertTrue(saved > 0, "the finished step was saved: " + lines.subList(Math.max(0, lines.size() - 5), lines.size()));
        assertTrue(lines.indexOf("hook ran") > saved, "shutdown hooks ran after the checkpoint");
        assertEquals(k, TrainingLoopDemo.Checkpoint.read(ckpt).orElseThrow().step());

        assertTrue(damaged.isEmpty(), damaged.size() + " reads saw a partial checkpoint, the first: "
                + (damaged.isEmpty() ? "" : damaged.get(0)));
        assertTrue(goodReads.get() > 0);
        assertTrue(events.stream().noneMatch(e -> e.startsWith("OVERFLOW")), "events were lost: " + events.size());
        assertTrue(events.stream().noneMatch(e -> e.equals("ENTRY_MODIFY run.ckpt")), "written in place: " + events);
        assertTrue(events.stream().filter(e -> e.equals("ENTRY_CREATE run.ckpt")).count() >= 25,
                "each checkpoint arrived by rename");
        try (Stream<Path> left = Files.list(dir)) {
            assertEquals(List.of(ckpt), left.toList(), "no temporary file is left behind");
        }

        // Started again on the same checkpoint, it resumes after the saved step.
        int total = k + 3;
        Process again = spawned.start(Spawned.javaCommand(List.of(), TrainingLoopDemo.class, "--checkpoint",
                ckpt.toString(), "--steps", Integer.toString(total), "--step-ms", "0")
                .redirectError(ProcessBuilder.Redirect.INHERIT));
        assertEquals("resumed after step " + k, Spawned.readLine(again, TIMEOUT));
        for (int s = k + 1; s <= total; s++) {
            assertEquals("step " + s, Spawned.readLine(again, TIMEOUT));
        }
        String done = Spawned.readLine(again, TIMEOUT);
        assertTrue(again.waitFor(60, TimeUnit.SECONDS));
        assertEquals(0, again.exitValue());

        // And ends with the model an uninterrupted run computes: no step repeated, none skipped.
        TrainingLoopDemo.Result straight = TrainingLoopDemo.train(new TrainingLoopDemo.Options(tmp.resolve("straight"),
                total, Duration.ZERO, 0), quiet(), () -> false);
        assertEquals("done after step " + total + ", model checksum "
                + Long.toHexString(straight.state().modelChecksum()), done);
    }

    @Test
    void aStopRequestIsHonouredAtTheStepBoundaryAndTheRunResumesExactly() {
        Path ckpt = tmp.resolve("a.ckpt");
        int[] asked = {0};
        ByteArrayOutputStream first = new ByteArrayOutputStream();
        TrainingLoopDemo.Result stopped = TrainingLoopDemo.train(new TrainingLoopDemo.Options(ckpt, 10, Duration.ZERO, 0),
                new PrintStream(first, true, StandardCharsets.UTF_8), () -> ++asked[0] == 3);
        assertTrue(stopped.stopped());
        assertEquals(3, stopped.lastStep());
        assertEquals(List.of("step 1", "step 2", "step 3", "checkpoint saved after step 3"), lines(first));
        assertEquals(stopped.state(), TrainingLoopDemo.Checkpoint.read(ckpt).orElseThrow());

        ByteArrayOutputStream second = new ByteArrayOutputStream();
        TrainingLoopDemo.Result resumed = TrainingLoopDemo.train(new TrainingLoopDemo.Options(ckpt, 6, Duration.ZERO, 0),
                new PrintStream(second, true, StandardCharsets.UTF_8), () -> false);
        List<String> l = lines(second);
        assertEquals(List.of("resumed after step 3", "step 4", "step 5", "step 6"), l.subList(0, 4));
        assertFalse(resumed.stopped());

        TrainingLoopDemo.Result straight = TrainingLoopDemo.train(new TrainingLoopDemo.Options(tmp.resolve("b.ckpt"), 6,
                Duration.ZERO, 0), quiet(), () -> false);
        assertEquals(straight.state(), resumed.state());
        assertEquals(straight.state().modelChecksum(), resumed.state().modelChecksum());
    }

    @Test
    void aDamagedCheckpointIsRefusedWithItsNameNotLoaded() throws IOException {
        Path ckpt = tmp.resolve("c.ckpt");
        TrainingLoopDemo.train(new TrainingLoopDemo.Options(ckpt, 2, Duration.ZERO, 0), quiet(), () -> false);
        byte[] whole = Files.readAllBytes(ckpt);

        Files.write(ckpt, java.util.Arrays.copyOf(whole, whole.length / 2));
        IllegalStateException partial = assertThrows(IllegalStateException.class,
                () -> TrainingLoopDemo.Checkpoint.read(ckpt));
        assertTrue(partial.getMessage().contains(ckpt.toString()), partial.getMessage());
        assertTrue(partial.getMessage().contains("damaged"), partial.getMessage());

        byte[] flipped = whole.clone();
        flipped[100] ^= 1;
        Files.write(ckpt, flipped);
        IllegalStateException crc = assertThrows(IllegalStateException.class,
                () -> TrainingLoopDemo.Checkpoint.read(ckpt));
        assertTrue(crc.getMessage().contains("crc32"), crc.getMessage());

        assertEquals(Optional.empty(), TrainingLoopDemo.Checkpoint.read(tmp.resolve("absent")));
    }

    @Test
    void aFifoOrDevZeroAsTheCheckpointIsRefusedInOneLineWithinTwoSeconds() throws Exception {
        Path fifo = tmp.resolve("fifo.ckpt");
        assertEquals(0, new ProcessBuilder("mkfifo", fifo.toString()).start().waitFor());
        for (Path ckpt : List.of(fifo, Path.of("/dev/zero"))) {
            Process p = spawned.start(Spawned.javaCommand(List.of("-Xmx64m"), TrainingLoopDemo.class,
                    "--checkpoint", ckpt.toString(), "--steps", "1", "--step-ms", "0").redirectErrorStream(true));
            assertTrue(p.waitFor(30, TimeUnit.SECONDS), "demo-train answers for " + ckpt);
            String all = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            assertEquals(1, p.exitValue(), all);
            assertEquals(1, all.lines().count(), all);
            assertTrue(all.contains(ckpt + " is damaged (not a regular file"), all);
        }
        Path huge = tmp.resolve("huge.ckpt");
        try (java.io.RandomAccessFile f = new java.io.RandomAccessFile(huge.toFile(), "rw")) {
            f.setLength(100L << 20);
        }
        long start = System.nanoTime();
        IllegalStateException e = assertThrows(IllegalStateException.class,
                () -> TrainingLoopDemo.Checkpoint.read(huge));
        assertTrue(e.getMessage().contains("more than a checkpoint holds"), e.getMessage());
        assertTrue(System.nanoTime() - start < 2_000_000_000L, "answered within two seconds");
    }

    @Test
    void atomicWritesReplaceTheFileAndLeaveNothingElse() throws IOException {
        Path f = tmp.resolve("x.ckpt");
        TrainingLoopDemo.writeAtomically(f, "one".getBytes(StandardCharsets.US_ASCII));
        TrainingLoopDemo.writeAtomically(f, "two".getBytes(StandardCharsets.US_ASCII));
        assertEquals("two", Files.readString(f));
        try (Stream<Path> left = Files.list(tmp)) {
            assertEquals(List.of(f), left.toList());
        }
        assertThrows(UncheckedIOException.class,
                () -> TrainingLoopDemo.writeAtomically(tmp.resolve("no/such/dir/y"), new byte[1]));
    }

    @Test
    void argumentsAreParsedAndBadOnesNamed() {
        TrainingLoopDemo.Options o = TrainingLoopDemo.Options.parse("--checkpoint", "r.ckpt", "--steps", "5",
                "--step-ms", "200");
        assertEquals(Path.of("r.ckpt"), o.checkpoint());
        assertEquals(5, o.steps());
        assertEquals(Duration.ofMillis(200), o.stepTime());
        assertEquals(0, o.checkpointEvery());
        assertEquals(3, TrainingLoopDemo.Options.parse("--checkpoint", "r", "--steps", "5", "--step-ms", "0",
                "--checkpoint-every", "3").checkpointEvery());

        assertBad("--checkpoint, --steps and --step-ms are required", "--checkpoint", "r");
        assertBad("--steps takes a whole number, not \"five\"", "--checkpoint", "r", "--steps", "five", "--step-ms", "1");
        assertBad("--steps must be at least 1", "--checkpoint", "r", "--steps", "0", "--step-ms", "1");
        assertBad("--step-ms must not be negative", "--checkpoint", "r", "--steps", "1", "--step-ms", "-1");
        assertBad("unknown option --epochs", "--epochs", "3");
        assertBad("missing value after --steps", "--checkpoint", "r", "--steps");
    }

    @Test
    void aUsageErrorExitsWith2AndSaysWhy() throws Exception {
        Process p = spawned.start(Spawned.javaCommand(List.of(), TrainingLoopDemo.class, "--steps", "x")
                .redirectErrorStream(true));
        String line = Spawned.readLine(p, TIMEOUT);
        assertTrue(p.waitFor(60, TimeUnit.SECONDS));
        assertEquals(2, p.exitValue());
        assertTrue(line.contains("usage: demo-train"), line);
    }

    private static void assertBad(String fragment, String... args) {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> TrainingLoopDemo.Options.parse(args));
        assertTrue(e.getMessage().contains(fragment), e.getMessage());
        assertTrue(e.getMessage().contains("usage:"), e.getMessage());
    }

    private static PrintStream quiet() {
        return new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8);
    }

    private static List<String> lines(ByteArrayOutputStream b) {
        return new ArrayList<>(List.of(b.toString(StandardCharsets.UTF_8).split("\\R")));
    }
}
