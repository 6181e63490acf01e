package io.github.procscope.api.core;

import java.nio.file.Path;
import java.util.Objects;

/**
 * A kernel file did not have the documented format. The message names the file, the offending line
 * (shortened and made printable) and what was expected. Seeing this on a real kernel is a bug in
 * procscope or a kernel format it does not know yet: please report the file's content.
 */
public class ProcfsParseException extends ProcfsException {
    private static final long serialVersionUID = 1L;

    private static final int MAX_SHOWN = 200;

    /** The text that could not be parsed. */
    private final String line;

    /**
     * Creates the exception.
     * @param file   the file being parsed
     * @param line   the offending line (any bytes; it is shortened and escaped for the message)
     * @param reason what was expected and not found
     */
    public ProcfsParseException(Path file, String line, String reason) {
        super(file, "cannot parse " + file + ": " + Objects.requireNonNull(reason, "reason") + " in line \"" + printable(line) + "\"");
        this.line = Objects.requireNonNull(line, "line");
    }

    /** {@return the offending line, exactly as read (decoded as ISO-8859-1)} */
    public String line() {
        return line;
    }

    private static String printable(String line) {
        StringBuilder sb = new StringBuilder(Math.min(line.length(), MAX_SHOWN) + 8);
        for (int i = 0; i < line.length() && sb.length() < MAX_SHOWN; i++) {
            char c = line.charAt(i);
            if (c == '\n') {
                sb.append("\\n");
            } else if (c == '\\') {
                sb.append("\\\\");
            } else if (c == '"') {
                sb.append("\\\"");
            } else if (c < 0x20 || c == 0x7f) {
                sb.append(String.format("\\x%02x", (int) c));
            } else {
                sb.append(c);
            }
        }
        if (sb.length() >= MAX_SHOWN) {
            sb.append("...");
        }
        return sb.toString();
    }
}
