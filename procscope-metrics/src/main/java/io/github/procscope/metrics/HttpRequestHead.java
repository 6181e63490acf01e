package io.github.procscope.metrics;

import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;

/**
 * The head of an HTTP/1.x request (its request line and header fields, RFC 9112), parsed from the bytes received so
 * far under fixed limits: a request line longer than {@value #MAX_REQUEST_LINE} bytes is {@code 414}, a head longer
 * than {@value #MAX_HEAD} bytes or with more than {@value #MAX_FIELDS} fields is {@code 431}, anything malformed
 * {@code 400} (a bare CR, a space before a field's colon, folded lines, control characters, an HTTP/1.1 request
 * without exactly one {@code Host}, a {@code Content-Length} that is not one decimal number), a version other than
 * 1.x {@code 505}. A line may end in CRLF or a bare LF; empty lines before the request line are skipped. A malformed
 * method is refused from its first byte, so a client that speaks TLS or another protocol is answered at once.
 *
 * @param method   the method, a token ({@code GET})
 * @param target   the request target as sent
 * @param path     the target's path, without query (an absolute-form target's path; {@code *} for the
 *                 asterisk form)
 * @param minor    the minor version: 0 for HTTP/1.0, 1 for HTTP/1.1 (and later 1.x)
 * @param fields   the header fields by lower-case name; a field sent several times has its values joined by
 *                 {@code ", "}
 * @param hasBody  whether a body follows ({@code Transfer-Encoding}, or a {@code Content-Length} above 0): the server
 *                 never reads one, so it closes the connection after answering
 * @param keepAlive whether the client keeps the connection for another request (HTTP/1.1 unless
 *                 {@code Connection: close}; HTTP/1.0 only with {@code Connection: keep-alive}), and sent no body
 */
record HttpRequestHead(String method, String target, String path, int minor, Map<String, String> fields,
                       boolean hasBody, boolean keepAlive) {
    /** The longest request line taken, in bytes (without its line end). */
    static final int MAX_REQUEST_LINE = 8 * 1024;
    /** The longest head taken, request line and fields with their line ends and the empty line, in bytes. */
    static final int MAX_HEAD = 16 * 1024;
    /** The most header field lines taken. */
    static final int MAX_FIELDS = 100;
    /** The most empty lines ignored before a request line. */
    private static final int MAX_LEADING_EMPTY_LINES = 4;

    HttpRequestHead {
        Objects.requireNonNull(method, "method");
        Objects.requireNonNull(target, "target");
        Objects.requireNonNull(path, "path");
        fields = Map.copyOf(fields);
    }

    /** @return the value of a field (its name in lower case), or {@code null} when the request has none */
    String field(String lowerCaseName) {
        return fields.get(lowerCaseName);
    }

    /** What the bytes received so far make. */
    sealed interface Parse permits Incomplete, Refused, Complete {
    }

    /** More bytes are needed; none seen so far breaks a rule. */
    record Incomplete() implements Parse {
    }

    /**
     * The request breaks a rule: answer with this status and close the connection.
     *
     * @param status the HTTP status: 400, 414, 431 or 505
     * @param reason what is wrong, in words, for the answer's body
     */
    record Refused(int status, String reason) implements Parse {
    }

    /**
     * A whole head.
     *
     * @param head     the head
     * @param consumed how many bytes it took, the empty line that ends it included
     */
    record Complete(HttpRequestHead head, int consumed) implements Parse {
    }

    private static final Incomplete INCOMPLETE = new Incomplete();

    /**
     * @param buf the bytes received on a connection since its last request
     * @param len how many of them there are
     * @return a whole head and its length, a refusal, or a request for more bytes
     */
    static Parse parse(byte[] buf, int len) {
        // A few empty lines before the request line are ignored (RFC 9112, section 2.2).
        int start = 0;
        while (start < len && (buf[start] == '\n' || buf[start] == '\r')) {
            if (buf[start] == '\r' && start + 1 < len && buf[start + 1] != '\n') {
                return new Refused(400, "malformed request: a CR not followed by LF");
            }
            start++;
            if (start > MAX_LEADING_EMPTY_LINES * 2) {
                return new Refused(400, "more than " + MAX_LEADING_EMPTY_LINES
                        + " empty lines before the request line");
            }
        }
        // The method, checked as its bytes arrive: another protocol (TLS, HTTP/2's preface is a token too) fails here.
        int sp1 = start;
        while (sp1 < len && buf[sp1] != ' ') {
            if (!isTokenChar(buf[sp1])) {
                return new Refused(400, "malformed request line: expected METHOD TARGET HTTP/1.1");
            }
            sp1++;
        }
        int lf = indexOf(buf, start, len, (byte) '\n');
        if (lf < 0) {
            return len - start > MAX_REQUEST_LINE
                    ? new Refused(414, "the request line is longer than " + MAX_REQUEST_LINE + " bytes")
                    : INCOMPLETE;
        }
        int lineEnd = lf > start && buf[lf - 1] == '\r' ? lf - 1 : lf;
        if (lineEnd - start > MAX_REQUEST_LINE) {
            return new Refused(414, "the request line is longer than " + MAX_REQUEST_LINE + " bytes");
        }
        if (sp1 >= lineEnd || sp1 == start) {
            return new Refused(400, "malformed request line: expected METHOD TARGET HTTP/1.1");
        }
        int sp2 = indexOf(buf, sp1 + 1, lineEnd, (byte) ' ');
        if (sp2 < 0 || sp2 == sp1 + 1 || indexOf(buf, sp2 + 1, lineEnd, (byte) ' ') >= 0) {
            return new Refused(400, "malformed request line: expected METHOD TARGET HTTP/1.1");
        }
        for (int i = sp1 + 1; i < sp2; i++) {
            if (buf[i] < 0x21 || buf[i] > 0x7e) {
                return new Refused(400, "malformed request target: only visible ASCII characters are allowed");
            }
        }
        int minor = version(buf, sp2 + 1, lineEnd);
        if (minor == -1) {
            return new Refused(400, "malformed request line: expected the version HTTP/1.1 or HTTP/1.0");
        }
        if (minor == -2) {
            return new Refused(505, "this server speaks HTTP/1.1 and HTTP/1.0 only");
        }
        String method = new String(buf, start, sp1 - start, StandardCharsets.US_ASCII);
        String target = new String(buf, sp1 + 1, sp2 - sp1 - 1, StandardCharsets.US_ASCII);
        // CONNECT names an authority, not a path: it is refused as a method, not as a malformed target.
        String path = method.equals("CONNECT") ? target : path(target);
        if (path == null) {
            return new Refused(400, "malformed request target: expected a path such as /metrics");
        }

        Map<String, String> fields = new LinkedHashMap<>();
        int hosts = 0;
        String contentLength = null;
        int count = 0;
        int at = lf + 1;
        while (true) {
            int end = indexOf(buf, at, len, (byte) '\n');
            if (end < 0) {
                return len >= MAX_HEAD
                        ? new Refused(431, "the request's header fields are longer than " + MAX_HEAD + " bytes")
                        : INCOMPLETE;
            }
            if (end + 1 > MAX_HEAD) {
                return new Refused(431, "the request's header fields are longer than " + MAX_HEAD + " bytes");
            }
            int fieldEnd = end > at && buf[end - 1] == '\r' ? end - 1 : end;
            if (fieldEnd == at) {
                at = end + 1;
                break;
            }
            if (++count > MAX_FIELDS) {
                return new Refused(431, "the request has more than " + MAX_FIELDS + " header fields");
            }
            if (buf[at] == ' ' || buf[at] == '\t') {
                return new Refused(400, "malformed header field: folded lines are not allowed");
            }
            int colon = at;
            while (colon < fieldEnd && buf[colon] != ':') {
                if (!isTokenChar(buf[colon])) {
                    return new Refused(400, "malformed header field: its name is not a token");
                }
                colon++;
            }
            if (colon == fieldEnd || colon == at) {
                return new Refused(400, "malformed header field: expected NAME: VALUE");
            }
            int v = colon + 1;
            int w = fieldEnd;
            while (v < w && (buf[v] == ' ' || buf[v] == '\t')) {
                v++;
            }
            while (w > v && (buf[w - 1] == ' ' || buf[w - 1] == '\t')) {
                w--;
            }
            for (int i = v; i < w; i++) {
                int b = buf[i] & 0xff;
                if (b < 0x20 && b != '\t' || b == 0x7f) {
                    return new Refused(400, "malformed header field: control characters in its value");
                }
            }
            String name = new String(buf, at, colon - at, StandardCharsets.US_ASCII).toLowerCase(Locale.ROOT);
            String value = new String(buf, v, w - v, StandardCharsets.ISO_8859_1);
            if (name.equals("host")) {
                hosts++;
            }
            if (name.equals("content-length")) {
                if (!value.matches("[0-9]{1,18}") || contentLength != null && !contentLength.equals(value)) {
                    return new Refused(400, "malformed Content-Length: expected one decimal number");
                }
                contentLength = value;
            }
            fields.merge(name, value, (a, b) -> a + ", " + b);
            at = end + 1;
        }
        if (minor >= 1 ? hosts != 1 : hosts > 1) {
            return new Refused(400, "an HTTP/1.1 request needs exactly one Host header field");
        }
        boolean hasBody = fields.containsKey("transfer-encoding")
                || contentLength != null && Long.parseLong(contentLength) > 0;
        boolean keepAlive = minor >= 1;
        String connection = fields.get("connection");
        if (connection != null) {
            for (String option : connection.split(",")) {
                String o = option.trim().toLowerCase(Locale.ROOT);
                if (o.equals("close")) {
                    keepAlive = false;
                    break;
                }
                if (o.equals("keep-alive")) {
                    keepAlive = true;
                }
            }
        }
        return new Complete(new HttpRequestHead(method, target, path, Math.min(minor, 1), fields, hasBody,
                keepAlive && !hasBody), at);
    }

    /** @return the minor version of {@code HTTP/1.x}, -2 for another major version, -1 when malformed */
    private static int version(byte[] buf, int from, int to) {
        if (to - from != 8 || buf[from] != 'H' || buf[from + 1] != 'T' || buf[from + 2] != 'T' || buf[from + 3] != 'P'
                || buf[from + 4] != '/' || !isDigit(buf[from + 5]) || buf[from + 6] != '.' || !isDigit(buf[from + 7])) {
            return -1;
        }
        return buf[from + 5] == '1' ? buf[from + 7] - '0' : -2;
    }

    /** @return the path of an origin-form, absolute-form or asterisk-form target, without query; null otherwise */
    private static String path(String target) {
        String t = target;
        if (t.equals("*")) {
            return t;
        }
        String lower = t.toLowerCase(Locale.ROOT);
        for (String scheme : new String[] {"http://", "https://"}) {
            if (lower.startsWith(scheme)) {
                int slash = t.indexOf('/', scheme.length());
                int query = t.indexOf('?', scheme.length());
                if (slash < 0 || query >= 0 && query < slash) {
                    return "/";
                }
                t = t.substring(slash);
                break;
            }
        }
        if (!t.startsWith("/")) {
            return null;
        }
        int q = t.indexOf('?');
        int hash = t.indexOf('#');
        int end = q < 0 ? hash : hash < 0 ? q : Math.min(q, hash);
        return end < 0 ? t : t.substring(0, end);
    }

    private static int indexOf(byte[] buf, int from, int to, byte b) {
        for (int i = from; i < to; i++) {
            if (buf[i] == b) {
                return i;
            }
        }
        return -1;
    }

    private static boolean isDigit(byte b) {
        return b >= '0' && b <= '9';
    }

    /** @return whether the byte may be part of a token (RFC 9110, section 5.6.2) */
    static boolean isTokenChar(byte b) {
        if (b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z' || b >= '0' && b <= '9') {
            return true;
        }
        return switch (b) {
            case '!', '#', '$', '%', '&', '\'', '*', '+', '-', '.', '^', '_', '`', '|', '~' -> true;
            default -> false;
        };
    }
}
