package io.github.procscope.linux.parse;

import io.github.procscope.api.core.ProcfsParseException;
import io.github.procscope.linux.sys.ByteCursor;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * Parser of {@code /proc/PID/cgroup} ({@code cgroups(7)}): one line per hierarchy,
 * {@code hierarchy-ID:controller-list:cgroup-path}. cgroup v1 hierarchies list their controllers
 * ({@code 4:memory:/user.slice}, {@code 1:name=systemd:/init.scope}); the v2 hierarchy is the line with
 * ID 0 and an empty list ({@code 0::/user.slice/session-2.scope}). The path is the rest of the line and
 * may itself hold colons.
 */
public final class ProcCgroupParser {
    private ProcCgroupParser() {
    }

    /**
     * One line.
     *
     * @param hierarchyId the hierarchy's id; 0 for cgroup v2
     * @param controllers the controllers bound to the hierarchy (empty for v2)
     * @param path        the cgroup's path within the hierarchy
     */
    public record Membership(int hierarchyId, List<String> controllers, String path) {
        public boolean isV2() {
            return hierarchyId == 0 && controllers.isEmpty();
        }
    }

    /**
     * @param source the file, for messages
     * @param buf    its bytes
     * @param len    how many are valid
     * @return the lines, in order
     * @throws ProcfsParseException if a line is malformed
     */
    public static List<Membership> parse(Path source, byte[] buf, int len) {
        ByteCursor c = new ByteCursor(source, buf, len);
        List<Membership> out = new ArrayList<>(16);
        while (!c.atEnd()) {
            if (c.atLineEnd()) {
                c.nextLine();
                continue;
            }
            int id = c.decimalInt();
            if (id < 0) {
                throw c.fail("negative hierarchy id");
            }
            c.expect(':');
            int from = c.position();
            while (!c.atLineEnd() && c.peek() != ':') {
                c.next();
            }
            List<String> controllers = new ArrayList<>(2);
            int start = from;
            for (int i = from; i <= c.position(); i++) {
                if (i == c.position() || buf[i] == ',') {
                    if (i > start) {
                        controllers.add(new String(buf, start, i - start, StandardCharsets.ISO_8859_1));
                    }
                    start = i + 1;
                }
            }
            c.expect(':');
            int pathAt = c.position();
            while (!c.atLineEnd()) {
                c.next();
            }
            if (c.position() == pathAt || buf[pathAt] != '/') {
                throw c.failAt(pathAt, "expected an absolute cgroup path");
            }
            out.add(new Membership(id, List.copyOf(controllers), ByteCursor.text(buf, pathAt, c.position())));
            c.nextLine();
        }
        return out;
    }
}
