package io.github.procscope.linux.jobs;

import io.github.procscope.api.job.LostOutput;

import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;

/**
 * Copies what a job writes into its pipe to the end of its output file, on a thread of its own, until the pipe
 * ends (every process of the job that held it has ended or closed it). A write the file refuses (a full disk, a
 * quota) loses that output, and only that: the job never blocks on a stuck file, and the bytes are counted with
 * when and why the first of them was lost. When a write succeeds again after a loss, a line saying how many
 * bytes are missing there is written first, so that the gap is visible in the file too.
 */
final class OutputPump {
    private static final int CHUNK = 64 * 1024;

    private final InputStream in;
    private final FileChannel out;
    private final Thread thread;
    /** Guarded by {@code this}. */
    private long lost;
    private long lostSinceMark;
    private Instant since;
    private String reason;

    private OutputPump(InputStream in, FileChannel out, String name) {
        this.in = in;
        this.out = out;
        this.thread = new Thread(this::run, name);
        this.thread.setDaemon(true);
    }

    /**
     * @param in   the read end of the job's pipe
     * @param out  the file, open for appending
     * @param name the copying thread's name
     * @return the pump, copying
     */
    static OutputPump start(InputStream in, FileChannel out, String name) {
        OutputPump p = new OutputPump(in, out, name);
        p.thread.start();
        return p;
    }

    private void run() {
        byte[] buf = new byte[CHUNK];
        try {
            // read(byte[]), not readAllBytes or transferTo: JDK 17's FileInputStream asks a pipe for its size
            for (int n; (n = in.read(buf)) > 0; ) {
                write(buf, n);
            }
        } catch (IOException e) {
            // The pipe was closed under us (the pump was abandoned): nothing more to copy.
        } finally {
            try {
                in.close();
            } catch (IOException e) {
                // nothing left to release
            }
            try {
                out.close();
            } catch (IOException e) {
                // a failure to close loses nothing that was not counted
            }
        }
    }

    private void write(byte[] buf, int n) {
        synchronized (this) {
            if (lostSinceMark > 0) {
                String mark = "[procscope: " + lostSinceMark + " bytes of the job's output are missing here: " + reason
                        + "]\n";
                if (!writeAll(ByteBuffer.wrap(mark.getBytes(StandardCharsets.UTF_8)), false)) {
                    lose(n, null);
                    return;
                }
                lostSinceMark = 0;
            }
        }
        writeAll(ByteBuffer.wrap(buf, 0, n), true);
    }

    /** @return whether all of it was written; if not and {@code count}, the rest is counted as lost */
    private boolean writeAll(ByteBuffer b, boolean count) {
        while (b.hasRemaining()) {
            try {
                if (out.write(b) == 0) {
                    throw new IOException("the file took no bytes");
                }
            } catch (IOException e) {
                if (count) {
                    lose(b.remaining(), e);
                }
                return false;
            }
        }
        return true;
    }

    private synchronized void lose(long bytes, IOException cause) {
        if (lost == 0) {
            since = Instant.now();
            reason = cause == null || cause.getMessage() == null ? String.valueOf(cause) : cause.getMessage();
        }
        lost += bytes;
        lostSinceMark += bytes;
    }

    /**
     * Waits for the copying to end, as it does once the pipe has ended.
     *
     * @param timeout the longest wait: a process that left the job and still holds the pipe keeps it open
     * @return what could not be written, if anything
     */
    Optional<LostOutput> finish(Duration timeout) throws InterruptedException {
        thread.join(Math.max(1, timeout.toMillis()));
        synchronized (this) {
            return lost == 0 ? Optional.empty() : Optional.of(new LostOutput(lost, since, reason));
        }
    }
}
