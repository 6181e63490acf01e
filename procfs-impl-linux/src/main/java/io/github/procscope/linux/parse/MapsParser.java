package io.github.procscope.linux.parse;

import io.github.procscope.api.core.DeviceNumber;
import io.github.procscope.api.memory.MemoryRegion;
import io.github.procscope.api.memory.RegionKind;
import io.github.procscope.api.memory.RegionPermissions;
import io.github.procscope.api.memory.RegionUsage;
import io.github.procscope.linux.sys.ByteCursor;
import io.github.procscope.linux.sys.ProcBuffer;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * Parser of {@code /proc/PID/maps}: one region per line,
 * {@code start-end perms offset major:minor inode [pathname]} ({@code proc(5)}; addresses, offset and
 * device numbers in hexadecimal, the inode in decimal). The same line heads each region's block in
 * {@code /proc/PID/smaps}, so {@link SmapsParser} reads those headers with {@link #header(ByteCursor)}.
 *
 * <p>The pathname starts after blank padding and runs to the end of the line; it may contain spaces. The
 * kernel escapes only a newline in it, as {@code \012}, and appends {@code " (deleted)"} when the file was
 * unlinked; both are undone here.
 */
public final class MapsParser {
    private static final byte[] DELETED = " (deleted)".getBytes(StandardCharsets.US_ASCII);

    private MapsParser() {
    }

    /**
     * One header line: a region without its smaps counters.
     */
    record Header(long start, long end, RegionPermissions permissions, long offset, DeviceNumber device, long inode,
                  Optional<String> pathname, RegionKind kind, boolean deleted) {
        MemoryRegion region(Optional<RegionUsage> usage) {
            return new MemoryRegion(start, end, permissions, offset, device, inode, pathname, kind, deleted, usage);
        }
    }

    /**
     * @param source the file, for messages
     * @param buf    its bytes
     * @param len    how many are valid
     * @return the regions in the file's order (ascending addresses); none for an empty file (a kernel thread
     *         or a zombie)
     * @throws io.github.procscope.api.core.ProcfsParseException if a line is malformed
     */
    static List<MemoryRegion> parse(Path source, byte[] buf, int len) {
        Regions r = new Regions(() -> source);
        r.lines(buf, 0, len);
        return r.finish();
    }

    /**
     * The regions of one {@code maps} file, parsed as its lines arrive ({@link ProcBuffer#stream}), so that the
     * file is never held whole; names, devices and permissions that repeat are shared. Not thread-safe.
     */
    public static final class Regions implements ProcBuffer.LineSink {
        private final ByteCursor.Source source;
        private final List<MemoryRegion> out = new ArrayList<>(64);
        private final Shared shared = new Shared();

        public Regions(ByteCursor.Source source) {
            this.source = source;
        }

        @Override
        public void lines(byte[] buf, int from, int to) {
            ByteCursor c = new ByteCursor(source, buf, from, to);
            while (!c.atEnd()) {
                if (c.atLineEnd()) {
                    c.nextLine(); // tolerate a blank line
                    continue;
                }
                out.add(header(c, shared).region(Optional.empty()));
                c.nextLine();
            }
        }

        /** @return the regions read */
        public List<MemoryRegion> finish() {
            return out;
        }
    }

    /**
     * Values that repeat from one region to the next of a file, kept to be shared rather than made again: the
     * sixteen permission sets, the last device and the last path (a library's regions follow one another).
     */
    static final class Shared {
        private final RegionPermissions[] permissions = new RegionPermissions[16];
        private DeviceNumber device;
        private byte[] name = new byte[0];
        private int nameLength = -1;
        private Optional<String> path = Optional.empty();

        RegionPermissions permissions(boolean r, boolean w, boolean x, boolean s) {
            int i = (r ? 1 : 0) | (w ? 2 : 0) | (x ? 4 : 0) | (s ? 8 : 0);
            RegionPermissions p = permissions[i];
            if (p == null) {
                p = new RegionPermissions(r, w, x, s);
                permissions[i] = p;
            }
            return p;
        }

        DeviceNumber device(int major, int minor) {
            DeviceNumber d = device;
            if (d == null || d.major() != major || d.minor() != minor) {
                d = new DeviceNumber(major, minor);
                device = d;
            }
            return d;
        }

        /** @return the unescaped path of {@code b[from, to)}, the last one's again when the bytes are the same */
        Optional<String> path(byte[] b, int from, int to) {
            int n = to - from;
            if (n == nameLength && java.util.Arrays.equals(b, from, to, name, 0, n)) {
                return path;
            }
            if (name.length < n) {
                name = new byte[Math.max(n, name.length * 2)];
            }
            System.arraycopy(b, from, name, 0, n);
            nameLength = n;
            path = Optional.of(unescape(b, from, to));
            return path;
        }
    }

    /**
     * Parses one header line, leaving the cursor at its newline (or the end).
     *
     * @param c a cursor at the start of the line
     * @return the region it describes
     * @throws io.github.procscope.api.core.ProcfsParseException if the line is malformed
     */
    static Header header(ByteCursor c) {
        return header(c, null);
    }

    /** As {@link #header(ByteCursor)}, sharing repeated values through {@code shared} when it is given. */
    static Header header(ByteCursor c, Shared shared) {
        int lineStart = c.position();
        long start = c.hex();
        c.expect('-');
        long end = c.hex();
        if (Long.compareUnsigned(end, start) < 0) {
            throw c.failAt(lineStart, "region ends before it starts");
        }
        c.expect(' ');
        RegionPermissions perms = permissions(c, shared);
        c.expect(' ');
        long offset = c.hex();
        c.expect(' ');
        int majorAt = c.position();
        long major = c.hex();
        c.expect(':');
        long minor = c.hex();
        if (major > DeviceNumber.MAX_MAJOR || minor > DeviceNumber.MAX_MINOR) {
            throw c.failAt(majorAt, "device number out of range");
        }
        c.expect(' ');
        long inode = c.unsignedDecimal();
        if (!c.atLineEnd() && c.peek() != ' ' && c.peek() != '\t') {
            throw c.fail("expected a blank after the inode");
        }
        c.skipBlanks();
        int nameStart = c.position();
        while (!c.atLineEnd()) {
            c.next();
        }
        int nameEnd = c.position();
        byte[] b = c.buffer();
        boolean deleted = endsWith(b, nameStart, nameEnd, DELETED);
        if (deleted) {
            nameEnd -= DELETED.length;
        }
        Optional<String> name = nameEnd <= nameStart ? Optional.empty() : shared != null
                ? shared.path(b, nameStart, nameEnd) : Optional.of(unescape(b, nameStart, nameEnd));
        DeviceNumber dev = shared != null ? shared.device((int) major, (int) minor)
                : new DeviceNumber((int) major, (int) minor);
        return new Header(start, end, perms, offset, dev, inode, name, kind(name, deleted), deleted);
    }

    private static RegionPermissions permissions(ByteCursor c, Shared shared) {
        int at = c.position();
        boolean r = flag(c, 'r', at);
        boolean w = flag(c, 'w', at);
        boolean x = flag(c, 'x', at);
        int s = c.next();
        if (s != 's' && s != 'p') {
            throw c.failAt(at, "expected permissions such as r-xp");
        }
        return shared != null ? shared.permissions(r, w, x, s == 's') : new RegionPermissions(r, w, x, s == 's');
    }

    private static boolean flag(ByteCursor c, char letter, int at) {
        int b = c.next();
        if (b == letter) {
            return true;
        }
        if (b == '-') {
            return false;
        }
        throw c.failAt(at, "expected permissions such as r-xp");
    }

    /**
     * @param pathname the unescaped path column, without the deleted mark
     * @param deleted  whether the deleted mark was there
     * @return what the region holds
     */
    public static RegionKind kind(Optional<String> pathname, boolean deleted) {
        if (pathname.isEmpty()) {
            return RegionKind.ANONYMOUS;
        }
        String p = pathname.get();
        if (p.startsWith("[")) {
            if (p.equals("[heap]")) {
                return RegionKind.HEAP;
            }
            if (p.equals("[stack]") || p.startsWith("[stack:")) {
                return RegionKind.STACK;
            }
            if (p.equals("[vdso]")) {
                return RegionKind.VDSO;
            }
            if (p.equals("[vvar]") || p.startsWith("[vvar_")) {
                return RegionKind.VVAR;
            }
            if (p.equals("[vsyscall]")) {
                return RegionKind.VSYSCALL;
            }
            if (p.startsWith("[anon_shmem:")) {
                return RegionKind.SHARED_MEMORY;
            }
            if (p.startsWith("[anon:")) {
                return RegionKind.NAMED_ANONYMOUS;
            }
            return RegionKind.SPECIAL;
        }
        if (!p.startsWith("/")) {
            return RegionKind.SPECIAL;
        }
        if ((deleted && (p.equals("/dev/zero") || p.startsWith("/SYSV"))) || p.startsWith("/memfd:")
                || p.startsWith("/dev/shm/")) {
            return RegionKind.SHARED_MEMORY;
        }
        if (p.startsWith("/dev/")) {
            return RegionKind.DEVICE;
        }
        return RegionKind.FILE;
    }

    /** Undoes the kernel's octal escapes ({@code \ooo}) and decodes the bytes as text. */
    static String unescape(byte[] b, int from, int to) {
        int backslash = -1;
        for (int i = from; i < to; i++) {
            if (b[i] == '\\') {
                backslash = i;
                break;
            }
        }
        if (backslash < 0) {
            return ByteCursor.text(b, from, to);
        }
        byte[] out = new byte[to - from];
        int n = 0;
        for (int i = from; i < to; i++) {
            if (b[i] == '\\' && i + 3 < to && isOctal(b, i + 1) && isOctal(b, i + 2)
                    && isOctal(b, i + 3) && b[i + 1] <= '3') {
                out[n++] = (byte) (((b[i + 1] - '0') << 6) | ((b[i + 2] - '0') << 3) | (b[i + 3] - '0'));
                i += 3;
            } else {
                out[n++] = b[i];
            }
        }
        return ByteCursor.text(out, 0, n);
    }

    private static boolean isOctal(byte[] b, int i) {
        return b[i] >= '0' && b[i] <= '7';
    }

    private static boolean endsWith(byte[] b, int from, int to, byte[] suffix) {
        if (to - from < suffix.length) {
            return false;
        }
        for (int i = 0; i < suffix.length; i++) {
            if (b[to - suffix.length + i] != suffix[i]) {
                return false;
            }
        }
        return true;
    }
}
