package io.github.procscope.linux.events;

import io.github.procscope.api.events.EventsUnavailableException;
import io.github.procscope.linux.parse.ProcEventParser;
import io.github.procscope.linux.sys.ByteCursor;
import io.github.procscope.linux.sys.ProcBuffer;
import io.github.procscope.linux.sys.ProcConnectorSocket;

import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

/**
 * The process connector as a source: receives datagrams, parses them, and puts the raw events in the queue
 * (completed later, by the delivery thread). An overrun of the socket's buffer is a loss marker. Closes the
 * socket when it ends.
 */
final class NetlinkSource implements Runnable {
    private final ProcConnectorSocket socket;
    private final EventQueue queue;
    private final Path procRoot;

    NetlinkSource(ProcConnectorSocket socket, EventQueue queue, Path procRoot) {
        this.socket = socket;
        this.queue = queue;
        this.procRoot = procRoot;
    }

    @Override
    public void run() {
        byte[] buf = new byte[64 * 1024];
        ProcBuffer commBuffer = new ProcBuffer(64);
        List<ProcEventParser.Raw> raws = new ArrayList<>();
        try {
            while (!queue.closed()) {
                int n;
                try {
                    n = socket.receive(buf);
                } catch (EventsUnavailableException e) {
                    break;
                }
                if (n == ProcConnectorSocket.OVERRUN) {
                    queue.offer(EventItem.loss(queue.countLost(1)));
                    continue;
                }
                if (n <= 0) {
                    continue;
                }
                Instant now = Instant.now();
                raws.clear();
                ProcEventParser.parse(buf, n, raws);
                for (ProcEventParser.Raw r : raws) {
                    if (r.what() == ProcEventParser.PROC_EVENT_EXEC) {
                        // The new program's name, read now: a short program may be gone (reaped) by the time
                        // the delivery thread comes to it, and its exit is to carry this name, not the old one.
                        r = r.withComm(readComm(r.pid(), commBuffer));
                    }
                    queue.offer(EventItem.raw(r, now));
                }
            }
        } finally {
            socket.close();
        }
    }

    /**
     * @return the name in {@code /proc/PID/comm} of the live procfs, read now, or {@code null} if it cannot be read
     *         (the process is gone)
     */
    private String readComm(long pid, ProcBuffer buf) {
        try {
            Path file = procRoot.resolve(Long.toString(pid)).resolve("comm");
            if (buf.read(file.toString(), 64) != ProcBuffer.Result.OK) {
                return null;
            }
            int n = buf.length();
            if (n > 0 && buf.bytes()[n - 1] == '\n') {
                n--;
            }
            return ByteCursor.text(buf.bytes(), 0, n);
        } catch (RuntimeException e) {
            return null;
        }
    }
}
