package io.github.procscope.examples;

import io.github.procscope.api.signals.ExitStatus;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * A training loop that survives preemption: when the scheduler sends TERM (Kubernetes, SLURM, docker
 * stop), it finishes the step it is in, writes a checkpoint, and exits with 143; started again, it resumes
 * from the checkpoint. The stop request only sets a flag; the loop looks at it at each step boundary, so
 * a checkpoint never holds a half-done step. The checkpoint is written to a temporary file and renamed into
 * place, so a KILL during the write leaves the previous one whole.
 *
 * <p>The exit status 143 is on purpose: {@link ExitStatus#fromShellStatus(int)} reads it as "TERM, or a
 * program that handled TERM and exited with 143 itself", and its {@code explain()} says to look for the
 * checkpoint.
 *
 * <p>Run: {@code java -cp ... io.github.procscope.examples.PreemptibleTrainingLoop CHECKPOINT STEPS STEP_MILLIS},
 * then {@code kill PID} and run it again.
 */
public final class PreemptibleTrainingLoop {
    private static final long CHECKPOINT_WAIT_SECONDS = 30;

    private PreemptibleTrainingLoop() {
    }

    /**
     * @param args the checkpoint file, the number of steps, the milliseconds one step takes
     * @throws InterruptedException if interrupted during a step
     */
    public static void main(String[] args) throws InterruptedException {
        if (args.length != 3) {
            System.err.println("usage: PreemptibleTrainingLoop CHECKPOINT STEPS STEP_MILLIS");
            System.exit(2);
        }
        Path checkpoint = Path.of(args[0]);
        int steps = Integer.parseInt(args[1]);
        long stepMillis = Long.parseLong(args[2]);

        AtomicBoolean stopRequested = new AtomicBoolean();
        CountDownLatch loopLeft = new CountDownLatch(1);
        // TERM (and INT, HUP) make the JVM run its shutdown hooks and then exit with 128 + N. This hook only
        // raises the flag and holds the exit until the loop has checkpointed at its next step boundary.
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            stopRequested.set(true);
            try {
                loopLeft.await(CHECKPOINT_WAIT_SECONDS, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }, "checkpoint-on-stop"));

        int step = resumeStep(checkpoint);
        System.out.println(step == 0 ? "starting" : "resumed at step " + step);
        try {
            for (; step < steps; step++) {
                trainOneStep(stepMillis);
                System.out.println("step " + step);
                if (stopRequested.get()) {                 // at the step boundary only
                    saveCheckpoint(checkpoint, step + 1);
                    System.out.println("stop requested: checkpointed at step " + (step + 1));
                    return;                                // the JVM goes on exiting with 143
                }
            }
            saveCheckpoint(checkpoint, steps);
            System.out.println("done");
        } finally {
            loopLeft.countDown();
        }
    }

    /**
     * @param checkpoint the checkpoint file
     * @return the step to start from: the one saved, or 0 when there is no checkpoint yet
     */
    public static int resumeStep(Path checkpoint) {
        try {
            return Files.exists(checkpoint) ? Integer.parseInt(Files.readString(checkpoint).trim()) : 0;
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read the checkpoint " + checkpoint, e);
        } catch (NumberFormatException e) {
            throw new IllegalStateException("the checkpoint " + checkpoint + " holds no step number", e);
        }
    }

    /**
     * Writes the step to resume from into a temporary file beside the checkpoint, then renames it into
     * place (atomically on one file system).
     *
     * @param checkpoint the checkpoint file
     * @param nextStep   the step to resume from
     */
    public static void saveCheckpoint(Path checkpoint, int nextStep) {
        Path tmp = checkpoint.resolveSibling(checkpoint.getFileName() + ".tmp");
        try {
            Files.writeString(tmp, nextStep + "\n", StandardCharsets.UTF_8);
            Files.move(tmp, checkpoint, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write the checkpoint " + checkpoint, e);
        }
    }

    private static void trainOneStep(long millis) throws InterruptedException {
        Thread.sleep(millis);
    }
}
