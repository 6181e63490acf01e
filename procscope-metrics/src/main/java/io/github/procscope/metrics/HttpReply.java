package io.github.procscope.metrics;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Objects;

/**
 * An answer to one request: its status, its header fields (the server adds {@code Date}, {@code Content-Length}
 * and {@code Connection}) and its body. The body array may be shared by several answers and is never changed.
 *
 * @param status the HTTP status
 * @param fields header fields as {@code {name, value}} pairs
 * @param body   the body (not sent in answer to {@code HEAD}, but its length is)
 */
record HttpReply(int status, List<String[]> fields, byte[] body) {
    HttpReply {
        Objects.requireNonNull(body, "body");
        fields = List.copyOf(fields);
    }

    /**
     * @param status the HTTP status
     * @param text   the body, one line of plain text
     * @param fields more header fields as {@code {name, value}} pairs
     * @return a plain-text answer
     */
    static HttpReply text(int status, String text, String[]... fields) {
        List<String[]> all = new java.util.ArrayList<>(fields.length + 1);
        all.add(new String[] {"Content-Type", "text/plain; charset=utf-8"});
        all.addAll(List.of(fields));
        return new HttpReply(status, all, (text + "\n").getBytes(StandardCharsets.UTF_8));
    }

    /** @return the reason phrase of the statuses this server sends */
    static String reason(int status) {
        return switch (status) {
            case 200 -> "OK";
            case 400 -> "Bad Request";
            case 404 -> "Not Found";
            case 405 -> "Method Not Allowed";
            case 408 -> "Request Timeout";
            case 414 -> "URI Too Long";
            case 431 -> "Request Header Fields Too Large";
            case 500 -> "Internal Server Error";
            case 503 -> "Service Unavailable";
            case 505 -> "HTTP Version Not Supported";
            default -> "Status " + status;
        };
    }
}
