package io.github.procscope.cli;

import com.fasterxml.jackson.databind.node.ObjectNode;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.ParentCommand;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.Objects;
import java.util.concurrent.Callable;

/** {@code procscope logs JOB [-f]}: the log of a job started with {@code run --detach}. */
@Command(name = "logs", mixinStandardHelpOptions = true, sortOptions = false,
        description = {"Print a detached job's log; -f follows it to the job's end.",
                "The log holds the standard output and error of a job started with 'procscope run --detach'.",
                "With -f, keep printing what the job writes until it ends (a log cut short or replaced is read "
                        + "again from its start), then exit 0.",
                "Exit status: 0; 1 the log is gone; 2 bad usage or no such job."},
        footer = {"", "Examples:", "  procscope logs 20261203-143012", "  procscope logs -f 20261203-143012"})
final class LogsCommand implements Callable<Integer> {
    private static final long POLL_MS = 100;

    @ParentCommand
    ProcscopeCli root;

    @Option(names = {"-f", "--follow"}, description = "Follow the log until the job ends.")
    boolean follow;

    @Option(names = "--state-dir", paramLabel = "DIR", description = "Where jobs are recorded (default: "
            + "$PROCSCOPE_STATE_DIR, else $XDG_STATE_HOME/procscope/jobs, else ~/.local/state/procscope/jobs).")
    Path stateDir;

    @Parameters(paramLabel = "JOB", description = "The job's id, as 'procscope jobs' lists it.")
    String job;

    @Override
    public Integer call() throws IOException, InterruptedException {
        Context ctx = root.context();
        JobStore store = JobStore.open(stateDir, false);
        ObjectNode rec = store.read(job).orElseThrow(() -> new IllegalArgumentException("no job '"
                + Table.printable(job) + "' in " + store.dir() + " (see 'procscope jobs')"));
        Path log = Path.of(rec.path("log").asText());
        FileChannel ch = open(log);
        Object key = fileKey(log);
        long pos = 0;
        try {
            while (true) {
                // Whether it ran before reading, so that what it wrote before ending is read after.
                boolean running = follow && running(ctx, store, rec);
                pos = copy(ch, pos, ctx);
                if (!running) {
                    return ProcscopeCli.OK;
                }
                Thread.sleep(POLL_MS);
                Object now = fileKey(log);
                if (now != null && !Objects.equals(now, key)) {
                    ch.close(); // replaced (rotated): read the new file from its start
                    ch = open(log);
                    key = now;
                    pos = 0;
                } else if (ch.size() < pos) {
                    pos = 0; // cut short: read it again from its start
                }
            }
        } finally {
            ch.close();
        }
    }

    private static boolean running(Context ctx, JobStore store, ObjectNode rec) {
        ObjectNode now = store.read(rec.path("id").asText()).orElse(rec);
        String state = now.path("state").asText();
        if (state.equals("starting") || state.equals("running")) {
            return JobsCommand.supervisorAlive(ctx, now) || JobsCommand.alive(ctx, now.path("job"));
        }
        return false;
    }

    private FileChannel open(Path log) throws IOException {
        if (!Files.isRegularFile(log)) {
            // A FIFO or device would block or never end: only a regular file is a log.
            throw new IllegalStateException("the log of job " + job + ", " + log + ", "
                    + (Files.exists(log) ? "is not a regular file" : "is gone"));
        }
        return FileChannel.open(log, StandardOpenOption.READ);
    }

    private static Object fileKey(Path log) {
        try {
            return Files.readAttributes(log, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS).fileKey();
        } catch (NoSuchFileException e) {
            return null;
        } catch (IOException e) {
            return null;
        }
    }

    /** Copies from {@code pos} to the end as it is now. @return the new position */
    private static long copy(FileChannel ch, long pos, Context ctx) throws IOException {
        ByteBuffer buf = ByteBuffer.allocate(64 * 1024);
        while (true) {
            buf.clear();
            int n = ch.read(buf, pos);
            if (n <= 0) {
                ctx.out().flush();
                return pos;
            }
            ctx.out().write(buf.array(), 0, n);
            pos += n;
        }
    }
}
