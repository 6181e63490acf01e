package io.github.procscope.linux.parse;

import io.github.procscope.api.core.DeviceNumber;
import io.github.procscope.api.core.ProcfsParseException;
import io.github.procscope.api.disk.MountInfo;
import io.github.procscope.linux.sys.ByteCursor;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * Parser of {@code /proc/PID/mountinfo} ({@code proc(5)}): one mount per line,
 * <pre>
 * 36 35 98:0 /mnt1 /mnt2 rw,noatime master:1 - ext3 /dev/root rw,errors=continue
 * (1)(2)(3)   (4)   (5)      (6)      (7)   (8) (9)    (10)         (11)
 * </pre>
 * mount id, parent id, major:minor, root, mount point, mount options, zero or more optional fields ended by
 * a lone {@code -}, file system type, source, super options. The kernel escapes space, tab, newline and
 * backslash in the path fields, the type and the source as octal {@code \040 \011 \012 \134}; they are
 * undone here.
 */
public final class MountinfoParser {
    private MountinfoParser() {
    }

    /**
     * @param source the file, for messages
     * @param buf    its bytes
     * @param len    how many are valid
     * @return the mounts in the file's order
     * @throws ProcfsParseException if a line is malformed
     */
    public static List<MountInfo> parse(Path source, byte[] buf, int len) {
        ByteCursor c = new ByteCursor(source, buf, len);
        List<MountInfo> out = new ArrayList<>(32);
        while (!c.atEnd()) {
            if (c.atLineEnd()) {
                c.nextLine();
                continue;
            }
            out.add(line(c));
            c.nextLine();
        }
        return out;
    }

    private static MountInfo line(ByteCursor c) {
        int mountId = c.decimalInt();
        c.expect(' ');
        int parentId = c.decimalInt();
        c.expect(' ');
        int devAt = c.position();
        long major = c.unsignedDecimal();
        c.expect(':');
        long minor = c.unsignedDecimal();
        if (major < 0 || minor < 0 || major > DeviceNumber.MAX_MAJOR || minor > DeviceNumber.MAX_MINOR) {
            throw c.failAt(devAt, "device number out of range");
        }
        c.expect(' ');
        String root = field(c);
        c.expect(' ');
        String mountPoint = field(c);
        c.expect(' ');
        List<String> options = commaList(field(c));
        List<String> optional = new ArrayList<>(2);
        while (true) {
            c.expect(' ');
            int at = c.position();
            String f = field(c);
            if (f.equals("-")) {
                break;
            }
            if (f.isEmpty()) {
                throw c.failAt(at, "expected an optional field or the \" - \" separator");
            }
            optional.add(f);
        }
        c.expect(' ');
        int typeAt = c.position();
        String type = field(c);
        if (type.isEmpty()) {
            throw c.failAt(typeAt, "expected the file system type");
        }
        c.expect(' ');
        String mountSource = field(c);
        List<String> superOptions = List.of();
        if (c.skipIf(' ')) {
            superOptions = commaList(field(c));
        }
        if (!c.atLineEnd()) {
            throw c.fail("unexpected text after the super options");
        }
        return new MountInfo(mountId, parentId, new DeviceNumber((int) major, (int) minor), root, mountPoint,
                options, optional, type, mountSource, superOptions);
    }

    /** One space-separated field, unescaped. */
    private static String field(ByteCursor c) {
        int start = c.position();
        while (!c.atLineEnd() && c.peek() != ' ') {
            c.next();
        }
        return MapsParser.unescape(c.buffer(), start, c.position());
    }

    private static List<String> commaList(String s) {
        List<String> out = new ArrayList<>(8);
        int from = 0;
        for (int i = 0; i <= s.length(); i++) {
            if (i == s.length() || s.charAt(i) == ',') {
                if (i > from) {
                    out.add(s.substring(from, i));
                }
                from = i + 1;
            }
        }
        return out;
    }
}
