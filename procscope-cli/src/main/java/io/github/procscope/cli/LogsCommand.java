package io.github.procscope.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.ParentCommand;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.SeekableByteChannel;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.Objects;
import java.util.concurrent.Callable;

/** {@code procscope logs JOB [-f]}: the log of a job started with {@code run --detach}. */
@Command(name = "logs", mixinStandardHelpOptions = true, sortOptions = false,
        description = {"Print a detached job's log; -f follows it to the job's end.",
                "The log holds the standard output and error of a job started with 'procscope run --detach'.",
                "With -f, keep printing what the job writes until it ends (a log cut short or replaced is read "
                        + "again from its start), then exit 0.",
                "Output the job wrote that could not go into the log (a full disk) is named on standard error at "
                        + "the end: how many bytes, from when, and why.",
                "A record or log that someone else could have written (see 'procscope jobs') is refused with the "
                        + "reason, never followed.",
                "Exit status: 0; 1 the log is gone, or the record or log is refused; 2 bad usage or no such job."},
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
        JobStore.Loaded rec = store.read(job).orElseThrow(() -> new IllegalArgumentException("no job '"
                + Table.printable(job) + "' in " + store.dir() + " (see 'procscope jobs')"));
        if (!rec.usable()) {
            throw new JobStore.RefusedException(rec.refusal());
        }
        JobStore.Log log = open(store, rec);
        long pos = 0;
        try {
            while (true) {
                // Whether it ran before reading, so that what it wrote before ending is read after.
                boolean running = follow && running(ctx, store, rec.record().get());
                pos = copy(log.channel(), pos, ctx);
                if (!running) {
                    break;
                }
                Thread.sleep(POLL_MS);
                Object now = JobStore.fileKey(log.path());
                if (now != null && !Objects.equals(now, log.fileKey())) {
                    log.channel().close(); // replaced (rotated): read the new file from its start
                    log = open(store, rec);
                    pos = 0;
                } else if (log.channel().size() < pos) {
                    pos = 0; // cut short: read it again from its start
                }
            }
        } finally {
            log.channel().close();
        }
        ObjectNode last = store.usable(job).orElse(rec.record().get());
        JsonNode lost = last.path("report").path("lostOutput");
        if (lost.path("bytes").isIntegralNumber()) {
            ctx.err().println("procscope logs: " + lost.path("bytes").asLong() + " bytes of the job's output are not in"
                    + " this log: they could not be written from " + lost.path("since").asText("?") + " on ("
                    + Table.printable(lost.path("reason").asText("?")) + ")");
        }
        return ProcscopeCli.OK;
    }

    private static boolean running(Context ctx, JobStore store, ObjectNode rec) {
        ObjectNode now = store.usable(rec.path("id").asText()).orElse(rec);
        String state = now.path("state").asText();
        if (state.equals("starting") || state.equals("running")) {
            return JobsCommand.supervisorAlive(ctx, now) || JobsCommand.alive(ctx, now.path("job"));
        }
        return false;
    }

    private JobStore.Log open(JobStore store, JobStore.Loaded rec) throws IOException {
        try {
            return store.openLog(rec);
        } catch (NoSuchFileException e) {
            throw new IllegalStateException("the log of job " + job + ", " + rec.record().get().path("log").asText()
                    + ", is gone");
        } catch (IOException e) {
            throw new IllegalStateException("the log of job " + job + " cannot be read: " + IoErrors.reason(e), e);
        }
    }

    /** Copies from {@code pos} to the end as it is now. @return the new position */
    private static long copy(SeekableByteChannel ch, long pos, Context ctx) throws IOException {
        ByteBuffer buf = ByteBuffer.allocate(64 * 1024);
        while (true) {
            buf.clear();
            ch.position(pos);
            int n = ch.read(buf);
            if (n <= 0) {
                ctx.out().flush();
                return pos;
            }
            ctx.out().write(buf.array(), 0, n);
            pos += n;
        }
    }
}
