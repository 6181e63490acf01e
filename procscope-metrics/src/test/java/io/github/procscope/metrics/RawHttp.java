package io.github.procscope.metrics;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;

/**
 * A client that sends exactly the bytes a test writes and reads answers byte by byte, for requests no ordinary
 * client sends (half-sent, oversized, unknown methods, pipelined). Every read has a generous time limit, so a
 * server that does not answer fails the test instead of hanging it.
 */
final class RawHttp implements AutoCloseable {
    /** How long a read may wait before the test fails. */
    static final int READ_TIMEOUT_MS = 30_000;

    private final Socket socket;
    private final InputStream in;
    private final OutputStream out;

    /**
     * @param status  the status code
     * @param fields  header fields by lower-case name
     * @param body    the body, as long as {@code Content-Length} says (none for an answer to {@code HEAD})
     */
    record Answer(int status, Map<String, String> fields, byte[] body) {
        String text() {
            return new String(body, StandardCharsets.UTF_8);
        }

        String field(String name) {
            return fields.get(name.toLowerCase(Locale.ROOT));
        }
    }

    RawHttp(InetSocketAddress to) throws IOException {
        this(to, 0);
    }

    /**
     * @param to            the server
     * @param receiveBuffer the socket's receive buffer, set before it connects (so the window is that small); 0 for
     *                      the system's default
     */
    RawHttp(InetSocketAddress to, int receiveBuffer) throws IOException {
        socket = new Socket();
        if (receiveBuffer > 0) {
            socket.setReceiveBufferSize(receiveBuffer);
        }
        socket.connect(to, READ_TIMEOUT_MS);
        socket.setSoTimeout(READ_TIMEOUT_MS);
        in = socket.getInputStream();
        out = socket.getOutputStream();
    }

    RawHttp send(String text) throws IOException {
        return send(text.getBytes(StandardCharsets.ISO_8859_1));
    }

    RawHttp send(byte[] bytes) throws IOException {
        out.write(bytes);
        out.flush();
        return this;
    }

    /** Reads one answer, its body as long as its {@code Content-Length}, or none when {@code head}. */
    Answer read(boolean head) throws IOException {
        String statusLine = line();
        if (statusLine == null) {
            throw new IOException("the server closed the connection without an answer");
        }
        if (!statusLine.startsWith("HTTP/1.1 ")) {
            throw new IOException("not an HTTP/1.1 status line: " + statusLine);
        }
        int status = Integer.parseInt(statusLine.substring(9, 12));
        Map<String, String> fields = new LinkedHashMap<>();
        for (String l = line(); l != null && !l.isEmpty(); l = line()) {
            int colon = l.indexOf(':');
            fields.put(l.substring(0, colon).toLowerCase(Locale.ROOT), l.substring(colon + 1).trim());
        }
        int length = head ? 0 : Integer.parseInt(fields.getOrDefault("content-length", "0"));
        byte[] body = in.readNBytes(length);
        if (body.length != length) {
            throw new IOException("the body ended after " + body.length + " of " + length + " bytes");
        }
        return new Answer(status, fields, body);
    }

    Answer read() throws IOException {
        return read(false);
    }

    /** @return whether the server has closed the connection: the next read ends (waits up to the read limit) */
    boolean closedByServer() throws IOException {
        try {
            return in.read() < 0;
        } catch (java.net.SocketException e) {
            return true; // reset
        }
    }

    /**
     * @param waitMs how long to wait for the end
     * @return whether the server has closed the connection within that time (false: still open)
     */
    boolean closedWithin(int waitMs) throws IOException {
        socket.setSoTimeout(waitMs);
        try {
            return in.read() < 0;
        } catch (SocketTimeoutException e) {
            return false;
        } catch (java.net.SocketException e) {
            return true;
        } finally {
            socket.setSoTimeout(READ_TIMEOUT_MS);
        }
    }

    Socket socket() {
        return socket;
    }

    private String line() throws IOException {
        ByteArrayOutputStream b = new ByteArrayOutputStream();
        int c;
        while ((c = in.read()) >= 0) {
            if (c == '\n') {
                String s = b.toString(StandardCharsets.ISO_8859_1);
                return s.endsWith("\r") ? s.substring(0, s.length() - 1) : s;
            }
            b.write(c);
        }
        return b.size() == 0 ? null : b.toString(StandardCharsets.ISO_8859_1);
    }

    @Override
    public void close() throws IOException {
        socket.close();
    }
}
