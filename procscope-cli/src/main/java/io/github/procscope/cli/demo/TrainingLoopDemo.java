package io.github.procscope.cli.demo;

import io.github.procscope.api.Procscope;
import io.github.procscope.api.signals.PreemptionGuard;
import io.github.procscope.api.signals.PreemptionGuardOptions;
import io.github.procscope.api.signals.Signal;

import java.io.IOException;
import java.io.InputStream;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.time.Duration;
import java.util.Arrays;
import java.util.Objects;
import java.util.Optional;
import java.util.function.BooleanSupplier;
import java.util.zip.CRC32;

/**
 * A training loop that checkpoints when it is preempted: simulated steps update a small "model"; when
 * TERM (or INT, or USR1) arrives, the loop finishes the step it is in, writes its checkpoint atomically
 * and exits with 128 + N (143 for TERM). Started again on the same checkpoint, it resumes after the
 * saved step, and ends with exactly the model an uninterrupted run would have.
 *
 * <pre>
 * procscope demo-train --checkpoint run.ckpt --steps 100 --step-ms 200
 * step 1
 * step 2
 * ...                               (kill -TERM PID)
 * step 7
 * checkpoint saved after step 7
 * $ echo $?
 * 143
 * procscope demo-train --checkpoint run.ckpt --steps 100 --step-ms 200
 * resumed after step 7
 * step 8
 * </pre>
 *
 * <p>The checkpoint is written to a temporary file in the same directory, forced to disk, then renamed
 * over the old one: a reader sees the old checkpoint or the new one, never a partial file. It is text:
 * a header, the step, the model's numbers, and a CRC-32 of all that, checked on load.
 */
public final class TrainingLoopDemo {
    /** The size of the simulated model, in numbers (about 100 KiB of checkpoint). */
    static final int MODEL_SIZE = 4096;
    /** The most bytes a checkpoint file has: a header, a step and {@link #MODEL_SIZE} hex numbers, with room. */
    static final int MAX_FILE_BYTES = 1 << 20;
    private static final String HEADER = "procscope-demo-checkpoint 1";
    private static final String USAGE = "usage: demo-train --checkpoint FILE --steps N --step-ms M"
            + " [--checkpoint-every K]";

    private TrainingLoopDemo() {
    }

    /**
     * The command line of the demo.
     *
     * @param checkpoint      the checkpoint file: read at start if it exists, written on a stop
     * @param steps           how many steps the whole run has (at least 1)
     * @param stepTime        how long one simulated step takes
     * @param checkpointEvery also save after every this many steps; 0 saves only on a stop and at the end
     */
    public record Options(Path checkpoint, int steps, Duration stepTime, int checkpointEvery) {
        /**
         * @throws IllegalArgumentException if steps is below 1, the step time negative, or the interval
         *                                  negative
         */
        public Options {
            Objects.requireNonNull(checkpoint, "checkpoint");
            Objects.requireNonNull(stepTime, "stepTime");
            if (steps < 1) {
                throw new IllegalArgumentException("--steps must be at least 1, not " + steps);
            }
            if (stepTime.isNegative()) {
                throw new IllegalArgumentException("--step-ms must not be negative, not " + stepTime.toMillis());
            }
            if (checkpointEvery < 0) {
                throw new IllegalArgumentException("--checkpoint-every must not be negative, not " + checkpointEvery);
            }
        }

        /**
         * Parses {@code --checkpoint FILE --steps N --step-ms M [--checkpoint-every K]}.
         *
         * @param args the arguments
         * @return the options
         * @throws IllegalArgumentException naming the bad or missing argument, with the usage
         */
        public static Options parse(String... args) {
            Path checkpoint = null;
            Integer steps = null;
            Integer stepMs = null;
            int every = 0;
            for (int i = 0; i < args.length; i++) {
                String flag = args[i];
                if (i + 1 >= args.length) {
                    throw new IllegalArgumentException("missing value after " + flag + "; " + USAGE);
                }
                String value = args[++i];
                switch (flag) {
                    case "--checkpoint": checkpoint = Path.of(value); break;
                    case "--steps": steps = number(flag, value); break;
                    case "--step-ms": stepMs = number(flag, value); break;
                    case "--checkpoint-every": every = number(flag, value); break;
                    default: throw new IllegalArgumentException("unknown option " + flag + "; " + USAGE);
                }
            }
            if (checkpoint == null || steps == null || stepMs == null) {
                throw new IllegalArgumentException("--checkpoint, --steps and --step-ms are required; " + USAGE);
            }
            try {
                return new Options(checkpoint, steps, Duration.ofMillis(stepMs), every);
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException(e.getMessage() + "; " + USAGE, e);
            }
        }

        private static int number(String flag, String value) {
            try {
                return Integer.parseInt(value);
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException(flag + " takes a whole number, not \"" + value + "\"; " + USAGE);
            }
        }
    }

    /**
     * A saved state: the last completed step and the model after it.
     *
     * @param step  the last completed step (0: none yet)
     * @param model the model's numbers
     */
    public record Checkpoint(int step, double[] model) {
        /** Copies the model. */
        public Checkpoint {
            model = model.clone();
        }

        @Override
        public double[] model() {
            return model.clone();
        }

        /** @return a CRC-32 of the model's numbers, to compare runs */
        public long modelChecksum() {
            CRC32 crc = new CRC32();
            ByteBuffer b = ByteBuffer.allocate(8);
            for (double d : model) {
                b.clear();
                b.putDouble(d);
                crc.update(b.array());
            }
            return crc.getValue();
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof Checkpoint && ((Checkpoint) o).step == step && Arrays.equals(((Checkpoint) o).model, model);
        }

        @Override
        public int hashCode() {
            return 31 * step + Arrays.hashCode(model);
        }

        @Override
        public String toString() {
            return "Checkpoint[step " + step + ", model checksum " + Long.toHexString(modelChecksum()) + "]";
        }

        /** @return the checkpoint as its file holds it */
        byte[] encode() {
            StringBuilder b = new StringBuilder(HEADER.length() + 24 * model.length);
            b.append(HEADER).append('\n').append("step ").append(step).append('\n');
            for (double d : model) {
                b.append(Long.toHexString(Double.doubleToRawLongBits(d))).append('\n');
            }
            byte[] body = b.toString().getBytes(StandardCharsets.US_ASCII);
            CRC32 crc = new CRC32();
            crc.update(body);
            byte[] trailer = String.format("crc32 %08x%n", crc.getValue()).getBytes(StandardCharsets.US_ASCII);
            byte[] out = Arrays.copyOf(body, body.length + trailer.length);
            System.arraycopy(trailer, 0, out, body.length, trailer.length);
            return out;
        }

        /**
         * Reads a checkpoint file.
         *
         * @param file the file
         * @return the checkpoint, or empty if the file does not exist
         * @throws IllegalStateException if the file is damaged (wrong header, bad number, CRC mismatch)
         * @throws UncheckedIOException  if it cannot be read
         */
        public static Optional<Checkpoint> read(Path file) {
            byte[] bytes;
            try {
                // The type first: a FIFO would block the open, a device would never end.
                BasicFileAttributes attrs = Files.readAttributes(file, BasicFileAttributes.class);
                if (!attrs.isRegularFile()) {
                    throw damaged(file, "not a regular file: a FIFO, device or directory");
                }
                if (attrs.size() > MAX_FILE_BYTES) {
                    throw damaged(file, "larger than " + MAX_FILE_BYTES + " bytes, more than a checkpoint holds");
                }
                try (InputStream in = Files.newInputStream(file)) {
                    bytes = in.readNBytes(MAX_FILE_BYTES + 1);
                }
                if (bytes.length > MAX_FILE_BYTES) {
                    throw damaged(file, "larger than " + MAX_FILE_BYTES + " bytes, more than a checkpoint holds");
                }
            } catch (NoSuchFileException e) {
                return Optional.empty();
            } catch (IOException e) {
                throw new UncheckedIOException("cannot read the checkpoint " + file, e);
            }
            return Optional.of(decode(file, bytes));
        }

        static Checkpoint decode(Path file, byte[] bytes) {
            String text = new String(bytes, StandardCharsets.US_ASCII);
            int crcAt = text.lastIndexOf("crc32 ");
            if (!text.startsWith(HEADER + "\n") || crcAt < 0 || !text.endsWith("\n")) {
                throw damaged(file, "no header or no crc32 line (a partial write?)");
            }
            CRC32 crc = new CRC32();
            crc.update(bytes, 0, crcAt);
            String expected = String.format("%08x", crc.getValue());
            String found = text.substring(crcAt + 6, text.length() - 1);
            if (!expected.equals(found)) {
                throw damaged(file, "crc32 is " + expected + " but the file says " + found);
            }
            String[] lines = text.substring(0, crcAt).split("\n");
            if (lines.length != 2 + MODEL_SIZE || !lines[1].startsWith("step ")) {
                throw damaged(file, "expected a step line and " + MODEL_SIZE + " numbers");
            }
            try {
                int step = Integer.parseInt(lines[1].substring(5));
                double[] model = new double[MODEL_SIZE];
                for (int i = 0; i < MODEL_SIZE; i++) {
                    model[i] = Double.longBitsToDouble(Long.parseUnsignedLong(lines[2 + i], 16));
                }
                return new Checkpoint(step, model);
            } catch (NumberFormatException e) {
                throw damaged(file, e.getMessage());
            }
        }

        private static IllegalStateException damaged(Path file, String why) {
            return new IllegalStateException("the checkpoint " + file + " is damaged (" + why + "); move it away to"
                    + " start from step 0");
        }
    }

    /**
     * How a run ended.
     *
     * @param lastStep the last completed step
     * @param stopped  whether it stopped early because a stop was requested
     * @param state    the state after the last step (also what the checkpoint holds)
     */
    public record Result(int lastStep, boolean stopped, Checkpoint state) {
    }

    /**
     * Runs the demo as the command-line tool does: parses the arguments, guards TERM, INT and USR1,
     * trains; on a stop, saves the checkpoint and exits with 128 + N through {@link System#exit(int)}
     * (shutdown hooks run); when the run completes, exits with 0. A usage error exits with 2; a damaged
     * or unwritable checkpoint exits with 1, after a message on stderr.
     *
     * @param args {@code --checkpoint FILE --steps N --step-ms M [--checkpoint-every K]}
     */
    public static void main(String[] args) {
        Options options;
        try {
            options = Options.parse(args);
        } catch (IllegalArgumentException e) {
            System.err.println(e.getMessage());
            System.exit(2);
            return;
        }
        int status;
        try {
            status = run(options, System.out, System.err);
        } catch (IllegalStateException | UncheckedIOException e) {
            System.err.println(e.getMessage());
            status = 1;
        }
        System.exit(status);
    }

    /**
     * The entry point for a command-line tool: guards TERM, INT and USR1 with a {@link PreemptionGuard},
     * warns on {@code err} about any it could not take (under nohup or -Xrs), and trains. When a stop is
     * requested, the current step is finished, the checkpoint saved, and the JVM exits with 128 + N
     * through {@link PreemptionGuard#exitAfterCheckpoint()}: this method then does not return.
     *
     * @param options the run
     * @param out     where {@code step K} lines go
     * @param err     where warnings go
     * @return 0 when the run completed
     */
    public static int run(Options options, PrintStream out, PrintStream err) {
        try (PreemptionGuard guard = Procscope.system().preemptionGuard(PreemptionGuardOptions.defaults().withSignals(Signal.TERM, Signal.INT, Signal.USR1))) {
            for (PreemptionGuard.Refusal r : guard.refused()) {
                err.println("warning: " + r.explanation());
            }
            Result result = train(options, out, guard::stopRequested);
            if (result.stopped()) {
                out.flush();
                guard.exitAfterCheckpoint();
            }
            return 0;
        }
    }

    /**
     * The loop itself, without signals or exits: resumes from the checkpoint if there is one, runs the
     * remaining steps, prints {@code step K} after each, and looks at {@code stopRequested} at every
     * step boundary; when it is true, saves the checkpoint and returns.
     *
     * @param options       the run
     * @param out           where progress lines go
     * @param stopRequested asked after each step
     * @return how the run ended
     */
    public static Result train(Options options, PrintStream out, BooleanSupplier stopRequested) {
        Checkpoint state = Checkpoint.read(options.checkpoint()).orElse(null);
        if (state != null) {
            out.println("resumed after step " + state.step());
        } else {
            state = new Checkpoint(0, initialModel());
        }
        double[] model = state.model();
        int step = state.step();
        while (step < options.steps()) {
            step++;
            simulateStep(model, step, options.stepTime());
            out.println("step " + step);
            out.flush();
            if (stopRequested.getAsBoolean()) {
                Checkpoint saved = new Checkpoint(step, model);
                writeAtomically(options.checkpoint(), saved.encode());
                out.println("checkpoint saved after step " + step);
                out.flush();
                return new Result(step, true, saved);
            }
            if (options.checkpointEvery() > 0 && step % options.checkpointEvery() == 0) {
                writeAtomically(options.checkpoint(), new Checkpoint(step, model).encode());
            }
        }
        Checkpoint last = new Checkpoint(step, model);
        writeAtomically(options.checkpoint(), last.encode());
        out.println("done after step " + step + ", model checksum " + Long.toHexString(last.modelChecksum()));
        out.flush();
        return new Result(step, false, last);
    }

    private static double[] initialModel() {
        double[] m = new double[MODEL_SIZE];
        for (int i = 0; i < m.length; i++) {
            m[i] = Math.sin(i) * 0.01;
        }
        return m;
    }

    /** One deterministic "optimizer step", plus the time it takes. */
    private static void simulateStep(double[] model, int step, Duration time) {
        for (int i = 0; i < model.length; i++) {
            model[i] = model[i] * 0.999 + Math.cos(step * 0.37 + i) * 0.001;
        }
        if (!time.isZero()) {
            try {
                Thread.sleep(time.toMillis());
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }

    /**
     * Writes a file so that readers see the old content or the new, never a part: a temporary file in
     * the same directory, forced to disk, renamed over the target, and the directory forced too.
     *
     * @param target the file
     * @param bytes  its new content
     * @throws UncheckedIOException if it cannot be written; the old file is then untouched
     */
    static void writeAtomically(Path target, byte[] bytes) {
        Path dir = target.toAbsolutePath().getParent();
        Path tmp = null;
        try {
            tmp = Files.createTempFile(dir, "." + target.getFileName() + ".", ".tmp");
            try (FileChannel ch = FileChannel.open(tmp, StandardOpenOption.WRITE)) {
                ByteBuffer b = ByteBuffer.wrap(bytes);
                int chunk = 16 * 1024;
                while (b.hasRemaining()) {
                    ByteBuffer part = b.duplicate();
                    part.limit(Math.min(b.limit(), b.position() + chunk));
                    b.position(b.position() + ch.write(part));
                }
                ch.force(true);
            }
            try {
                Files.move(tmp, target, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
            } catch (AtomicMoveNotSupportedException e) {
                throw new IOException("the file system of " + dir + " cannot rename atomically; a checkpoint there"
                        + " could be seen half-written", e);
            }
            tmp = null;
            try (FileChannel d = FileChannel.open(dir, StandardOpenOption.READ)) {
                d.force(true);
            } catch (IOException e) {
                // Some file systems cannot sync a directory; the rename itself is done.
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write the checkpoint " + target + ": " + e.getMessage(), e);
        } finally {
            if (tmp != null) {
                try {
                    Files.deleteIfExists(tmp);
                } catch (IOException e) {
                    // The temporary file stays; it never has the checkpoint's name.
                }
            }
        }
    }
}
