package io.github.procscope.linux.parse;

import io.github.procscope.linux.sys.ByteCursor;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/**
 * Parser of {@code /proc/PID/cmdline}: the argument vector, each argument ended by a NUL byte. Kernel
 * threads and zombies have none (the file is empty). A process that rewrote its arguments (as
 * {@code setproctitle} does) may leave no final NUL; the text after the last NUL is then the last
 * argument. Arguments are decoded as UTF-8.
 */
public final class CmdlineParser {
    private CmdlineParser() {
    }

    public static List<String> parse(byte[] buf, int len) {
        if (len == 0) {
            return List.of();
        }
        List<String> args = new ArrayList<>();
        int start = 0;
        for (int i = 0; i < len; i++) {
            if (buf[i] == 0) {
                args.add(ByteCursor.text(buf, start, i));
                start = i + 1;
            }
        }
        if (start < len) {
            args.add(ByteCursor.text(buf, start, len));
        }
        return Collections.unmodifiableList(args);
    }
}
