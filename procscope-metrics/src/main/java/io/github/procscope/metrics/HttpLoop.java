package io.github.procscope.metrics;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.CancelledKeyException;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.net.StandardSocketOptions;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;

/**
 * The connections of {@link MetricsServer}: one thread that accepts, reads and writes with non-blocking sockets, so
 * that a client that is slow or silent holds a few kilobytes and never a thread. A connection is always in one
 * state, and every state but one has a deadline:
 * <ul>
 *   <li>reading a request head: the head must arrive within the request timeout (counted from the connection's
 *       acceptance, or from the first byte of a request on a kept-alive connection); past it the client gets
 *       {@code 408} if it sent part of a request, else the connection is closed. A kept-alive connection waiting
 *       for its next request is closed after the idle timeout. A head is refused past fixed sizes
 *       ({@link HttpRequestHead});</li>
 *   <li>waiting for its answer (the handler's future): no deadline, the server computes it;</li>
 *   <li>writing the answer: within the response timeout, else closed;</li>
 *   <li>closing: after an answer with {@code Connection: close} the server ends its side and reads and discards
 *       what the client still sends for up to 2 s (the client gets the answer instead of a reset when it sent more
 *       than was read, such as an oversized request).</li>
 * </ul>
 * The number of connections is bounded: a connection accepted at the bound closes the open connection that has
 * waited longest on its client (reading, writing or closing, never one waiting for its answer), so a client that
 * holds many connections open cannot lock the scraper out. Requests on one connection are answered in order, one at
 * a time. The handler is called on this thread and must not block; its future may complete on any thread.
 */
final class HttpLoop {
    /** Answers requests. */
    interface Handler {
        /**
         * Called on the loop's thread; must not block.
         *
         * @param request a request head, well-formed
         * @return its answer, now or later
         */
        CompletableFuture<HttpReply> handle(HttpRequestHead request);
    }

    private static final long LINGER_NANOS = TimeUnit.SECONDS.toNanos(2);
    private static final long LINGER_BYTES = 16L << 20;
    private static final long ACCEPT_PAUSE_NANOS = TimeUnit.MILLISECONDS.toNanos(100);
    private static final byte[] NO_BYTES = new byte[0];

    private enum State { READING, ANSWERING, WRITING, LINGERING }

    /** One connection; touched by the loop's thread only. */
    private static final class Connection {
        final SocketChannel channel;
        SelectionKey key;
        State state = State.READING;
        long deadline;
        long lastActivity;
        /** Kept alive after an answer, with no byte of the next request yet (the idle timeout applies). */
        boolean idle;
        /** The client ended its side: answer what was received, then close. */
        boolean eof;
        boolean closed;
        byte[] in = NO_BYTES;
        int inLength;
        /** How many bytes of {@link #in} the last parse saw: the head is parsed again when a line ends. */
        int parsedLength;
        ByteBuffer[] out;
        boolean closeAfter;
        long lingered;

        Connection(SocketChannel channel) {
            this.channel = channel;
        }
    }

    private final ServerSocketChannel server;
    private final Selector selector;
    private final SelectionKey serverKey;
    private final Handler handler;
    private final int maxConnections;
    private final long requestNanos;
    private final long idleNanos;
    private final long responseNanos;
    private final Queue<Runnable> tasks = new ConcurrentLinkedQueue<>();
    private final List<Connection> connections = new ArrayList<>();
    private final ByteBuffer scratch = ByteBuffer.allocateDirect(16 * 1024);
    private final Thread thread;
    private volatile boolean stopping;
    /** How many connections are open, for tests and for other threads. */
    private volatile int open;
    private long acceptPausedUntil;
    private boolean acceptPaused;

    HttpLoop(ServerSocketChannel server, MetricsServer.Limits limits, Handler handler) throws IOException {
        this.server = server;
        this.handler = handler;
        this.maxConnections = limits.maxConnections();
        this.requestNanos = limits.requestTimeout().toNanos();
        this.idleNanos = limits.idleTimeout().toNanos();
        this.responseNanos = limits.responseTimeout().toNanos();
        this.selector = Selector.open();
        server.configureBlocking(false);
        this.serverKey = server.register(selector, SelectionKey.OP_ACCEPT);
        this.thread = new Thread(this::run, "procscope-metrics-http");
        thread.setDaemon(true);
    }

    void start() {
        thread.start();
    }

    /** Stops: every connection and the listening socket are closed when this returns (or within 10 s). */
    void stop() throws InterruptedException {
        stopping = true;
        selector.wakeup();
        if (Thread.currentThread() != thread) {
            thread.join(10_000);
        }
    }

    /** @return how many connections are open now */
    int openConnections() {
        return open;
    }

    /** Runs a task on the loop's thread, from any thread. */
    private void post(Runnable task) {
        tasks.add(task);
        selector.wakeup();
    }

    private void run() {
        try {
            while (!stopping) {
                long wait = sweep(System.nanoTime());
                selector.select(wait);
                for (Runnable t = tasks.poll(); t != null; t = tasks.poll()) {
                    t.run();
                }
                long now = System.nanoTime();
                Iterator<SelectionKey> ready = selector.selectedKeys().iterator();
                while (ready.hasNext()) {
                    SelectionKey key = ready.next();
                    ready.remove();
                    if (key == serverKey) {
                        if (key.isValid() && key.isAcceptable()) {
                            accept(now);
                        }
                        continue;
                    }
                    Connection c = (Connection) key.attachment();
                    try {
                        if (!key.isValid()) {
                            close(c);
                        } else if (key.isReadable()) {
                            read(c, now);
                        } else if (key.isWritable() && c.state == State.WRITING) {
                            writeSome(c, now);
                        }
                    } catch (IOException | CancelledKeyException e) {
                        close(c);
                    } catch (RuntimeException e) {
                        // A fault with one connection is that connection's end, never the server's.
                        close(c);
                    }
                }
            }
        } catch (IOException e) {
            // The selector failed: nothing can be served any more; the sockets are closed below.
        } finally {
            for (Connection c : new ArrayList<>(connections)) {
                close(c);
            }
            closeQuietly(server);
            try {
                selector.close();
            } catch (IOException ignored) {
                // nothing to do: the loop ends
            }
        }
    }

    /**
     * Ends what is past its deadline.
     *
     * @return how long {@code select} may wait: until the next deadline, in milliseconds (at least 1); 0 for none
     */
    private long sweep(long now) {
        long next = Long.MAX_VALUE;
        for (int i = connections.size() - 1; i >= 0; i--) {
            if (i >= connections.size()) {
                continue;
            }
            Connection c = connections.get(i);
            if (c.state == State.ANSWERING) {
                continue;
            }
            if (now - c.deadline >= 0) {
                expire(c, now);
            }
            if (!c.closed && c.state != State.ANSWERING) {
                next = Math.min(next, c.deadline - now);
            }
        }
        if (acceptPaused) {
            if (now - acceptPausedUntil >= 0) {
                acceptPaused = false;
                serverKey.interestOps(SelectionKey.OP_ACCEPT);
            } else {
                next = Math.min(next, acceptPausedUntil - now);
            }
        }
        return next == Long.MAX_VALUE ? 0 : Math.max(1, TimeUnit.NANOSECONDS.toMillis(next) + 1);
    }

    private void expire(Connection c, long now) {
        if (c.state == State.READING && c.inLength == 0 && !c.eof) {
            // Bytes that arrived since the last turn of the loop make this a late request (408), not a silent one.
            try {
                read(c, now);
            } catch (IOException | CancelledKeyException e) {
                close(c);
            }
            if (c.closed || c.state != State.READING || c.deadline - now > 0) {
                return; // closed, answering, or a kept-alive connection's next request, which has its full time
            }
        }
        if (c.state == State.READING && c.inLength > 0) {
            answer(c, HttpReply.text(408, "request timeout: the request did not arrive within "
                    + TimeUnit.NANOSECONDS.toMillis(requestNanos) + " ms"), false, false, false, now);
        } else {
            close(c);
        }
    }

    private void accept(long now) {
        while (true) {
            SocketChannel ch;
            try {
                ch = server.accept();
            } catch (IOException e) {
                // Out of descriptors, most likely: the pending connection stays in the backlog, and accepting again
                // at once would spin. Try again shortly.
                acceptPaused = true;
                acceptPausedUntil = now + ACCEPT_PAUSE_NANOS;
                serverKey.interestOps(0);
                return;
            }
            if (ch == null) {
                return;
            }
            if (connections.size() >= maxConnections && !evictOne()) {
                closeQuietly(ch);
                continue;
            }
            try {
                ch.configureBlocking(false);
                ch.setOption(StandardSocketOptions.TCP_NODELAY, true);
                Connection c = new Connection(ch);
                c.deadline = now + requestNanos;
                c.lastActivity = now;
                c.key = ch.register(selector, SelectionKey.OP_READ, c);
                connections.add(c);
                open = connections.size();
            } catch (IOException e) {
                closeQuietly(ch);
            }
        }
    }

    /** Closes the connection that has waited longest on its client; false when every one waits for its answer. */
    private boolean evictOne() {
        Connection oldest = null;
        for (Connection c : connections) {
            if (c.state != State.ANSWERING && (oldest == null || c.lastActivity - oldest.lastActivity < 0)) {
                oldest = c;
            }
        }
        if (oldest == null) {
            return false;
        }
        close(oldest);
        return true;
    }

    private void read(Connection c, long now) throws IOException {
        if (c.state == State.LINGERING) {
            scratch.clear();
            int n = c.channel.read(scratch);
            c.lingered += Math.max(0, n);
            if (n < 0 || c.lingered > LINGER_BYTES) {
                close(c);
            }
            return;
        }
        if (c.state != State.READING) {
            return;
        }
        int room = HttpRequestHead.MAX_HEAD - c.inLength;
        if (room <= 0) {
            close(c); // the head was refused at this size; not reached
            return;
        }
        scratch.clear();
        scratch.limit(Math.min(scratch.capacity(), room));
        int n = c.channel.read(scratch);
        if (n < 0) {
            c.eof = true;
            if (c.inLength == 0) {
                close(c);
            } else {
                dispatch(c, now);
            }
            return;
        }
        if (n == 0) {
            return;
        }
        int before = c.inLength;
        if (c.in.length < before + n) {
            int size = Math.max(1024, c.in.length);
            while (size < before + n) {
                size *= 2;
            }
            c.in = java.util.Arrays.copyOf(c.in, Math.min(size, HttpRequestHead.MAX_HEAD));
        }
        scratch.flip();
        scratch.get(c.in, before, n);
        c.inLength = before + n;
        c.lastActivity = now;
        if (c.idle) {
            c.idle = false;
            c.deadline = now + requestNanos;
        }
        boolean lineEnded = false;
        for (int i = before; i < c.inLength && !lineEnded; i++) {
            lineEnded = c.in[i] == '\n';
        }
        // Parsed again only when a line ends, when the bytes have doubled since the last parse, or at the limit: a
        // client that sends its head a byte at a time costs linear time, not quadratic.
        if (lineEnded || c.inLength >= 2 * c.parsedLength || c.inLength >= HttpRequestHead.MAX_HEAD) {
            dispatch(c, now);
        }
    }

    /** Parses what a reading connection received and, for a whole head, asks the handler. */
    private void dispatch(Connection c, long now) {
        c.parsedLength = c.inLength;
        HttpRequestHead.Parse p = HttpRequestHead.parse(c.in, c.inLength);
        if (p instanceof HttpRequestHead.Incomplete) {
            if (c.eof || c.inLength >= HttpRequestHead.MAX_HEAD) {
                close(c);
            }
            return;
        }
        if (p instanceof HttpRequestHead.Refused r) {
            answer(c, HttpReply.text(r.status(), r.reason()), false, false, false, now);
            return;
        }
        HttpRequestHead.Complete done = (HttpRequestHead.Complete) p;
        int rest = c.inLength - done.consumed();
        if (rest > 0) {
            System.arraycopy(c.in, done.consumed(), c.in, 0, rest);
        } else {
            c.in = NO_BYTES;
        }
        c.inLength = rest;
        c.parsedLength = 0;
        HttpRequestHead head = done.head();
        boolean keepAlive = head.keepAlive() && !c.eof;
        boolean onlyHead = head.method().equals("HEAD");
        boolean http10 = head.minor() == 0;
        c.state = State.ANSWERING;
        c.key.interestOps(0);
        CompletableFuture<HttpReply> reply;
        try {
            reply = handler.handle(head);
        } catch (RuntimeException e) {
            reply = CompletableFuture.completedFuture(HttpReply.text(500, "the server failed: " + e));
        }
        reply.whenComplete((r, e) -> {
            HttpReply answer = e == null ? r : HttpReply.text(500, "the server failed: " + e);
            if (Thread.currentThread() == thread) {
                answer(c, answer, keepAlive, onlyHead, http10, System.nanoTime());
            } else {
                post(() -> answer(c, answer, keepAlive, onlyHead, http10, System.nanoTime()));
            }
        });
    }

    /** Starts writing an answer; the connection is closed after it unless it is kept alive. */
    private void answer(Connection c, HttpReply reply, boolean keepAlive, boolean onlyHead, boolean http10,
                        long now) {
        if (c.closed || stopping) {
            return;
        }
        StringBuilder h = new StringBuilder(256);
        h.append("HTTP/1.1 ").append(reply.status()).append(' ').append(HttpReply.reason(reply.status()))
                .append("\r\n");
        HttpDate.appendField(Math.floorDiv(System.currentTimeMillis(), 1000L), h);
        for (String[] f : reply.fields()) {
            h.append(f[0]).append(": ").append(f[1]).append("\r\n");
        }
        h.append("Content-Length: ").append(reply.body().length).append("\r\n");
        if (!keepAlive) {
            h.append("Connection: close\r\n");
        } else if (http10) {
            h.append("Connection: keep-alive\r\n");
        }
        h.append("\r\n");
        ByteBuffer head = ByteBuffer.wrap(h.toString().getBytes(StandardCharsets.ISO_8859_1));
        c.out = onlyHead || reply.body().length == 0 ? new ByteBuffer[] {head}
                : new ByteBuffer[] {head, ByteBuffer.wrap(reply.body())};
        c.closeAfter = !keepAlive;
        c.state = State.WRITING;
        c.deadline = now + responseNanos;
        try {
            writeSome(c, now);
        } catch (IOException | CancelledKeyException e) {
            close(c);
        }
    }

    private void writeSome(Connection c, long now) throws IOException {
        long n = c.channel.write(c.out);
        if (n > 0) {
            c.lastActivity = now;
        }
        if (c.out[c.out.length - 1].hasRemaining()) {
            c.key.interestOps(SelectionKey.OP_WRITE);
            return;
        }
        c.out = null;
        if (c.closeAfter) {
            linger(c, now);
            return;
        }
        c.state = State.READING;
        c.key.interestOps(SelectionKey.OP_READ);
        if (c.inLength > 0) {
            // A pipelined request: parsed on the next turn of the loop (not from here, so that a long pipeline
            // does not nest calls).
            c.idle = false;
            c.deadline = now + requestNanos;
            post(() -> {
                if (!c.closed && c.state == State.READING && c.inLength > 0) {
                    dispatch(c, System.nanoTime());
                }
            });
        } else {
            c.idle = true;
            c.deadline = now + idleNanos;
        }
    }

    /** Ends the server's side and discards what the client still sends, until it closes or 2 s have passed. */
    private void linger(Connection c, long now) {
        c.in = NO_BYTES;
        c.inLength = 0;
        if (c.eof) {
            close(c);
            return;
        }
        try {
            c.channel.shutdownOutput();
        } catch (IOException e) {
            close(c);
            return;
        }
        c.state = State.LINGERING;
        c.deadline = now + LINGER_NANOS;
        c.key.interestOps(SelectionKey.OP_READ);
    }

    private void close(Connection c) {
        if (c.closed) {
            return;
        }
        c.closed = true;
        if (c.key != null) {
            c.key.cancel();
        }
        closeQuietly(c.channel);
        connections.remove(c);
        open = connections.size();
        c.in = NO_BYTES;
        c.out = null;
    }

    private static void closeQuietly(java.nio.channels.Channel ch) {
        try {
            ch.close();
        } catch (IOException ignored) {
            // closing: nothing else to do
        }
    }
}
