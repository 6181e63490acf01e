package io.github.procscope.linux.parse;

import io.github.procscope.api.core.ProcfsParseException;
import io.github.procscope.api.files.OpenFlags;
import io.github.procscope.linux.sys.ByteCursor;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.OptionalInt;
import java.util.OptionalLong;

/**
 * Parser of {@code /proc/PID/fdinfo/FD} ({@code proc(5)}): {@code pos:} (decimal), {@code flags:} (octal)
 * and, on newer kernels, {@code mnt_id:} (3.15+) and {@code ino:} (5.14+), each {@code key:\tvalue}. Lines
 * that depend on the file's kind ({@code eventfd-count:}, {@code tfd:}, {@code inotify wd:}, {@code lock:}
 * ...) are skipped. {@code pos} and {@code flags} are required.
 */
public final class FdinfoParser {
    private FdinfoParser() {
    }

    /**
     * The facts of one {@code fdinfo} file.
     *
     * @param position the file offset
     * @param flags    the open flags, decoded
     * @param mountId  {@code mnt_id}, if printed
     * @param inode    {@code ino}, if printed
     */
    public record Fdinfo(long position, OpenFlags flags, OptionalInt mountId, OptionalLong inode) {
    }

    /**
     * @param source the file, for messages
     * @param buf    its bytes
     * @param len    how many are valid
     * @param bits   the architecture's flag values
     * @return the facts
     * @throws ProcfsParseException if a known line is malformed or {@code pos}/{@code flags} is missing
     */
    public static Fdinfo parse(Path source, byte[] buf, int len, OpenFlagBits bits) {
        ByteCursor c = new ByteCursor(source, buf, len);
        long pos = 0;
        boolean posSeen = false;
        int flags = 0;
        boolean flagsSeen = false;
        OptionalInt mnt = OptionalInt.empty();
        OptionalLong ino = OptionalLong.empty();
        while (!c.atEnd()) {
            int keyStart = c.position();
            while (!c.atLineEnd() && c.peek() != ':') {
                c.next();
            }
            if (c.atLineEnd()) {
                c.nextLine(); // a line without a key (continuation of a kind-specific block)
                continue;
            }
            String key = new String(buf, keyStart, c.position() - keyStart, StandardCharsets.ISO_8859_1);
            c.expect(':');
            c.skipBlanks();
            switch (key) {
                case "pos":
                    pos = c.decimal();
                    posSeen = true;
                    end(c, key);
                    break;
                case "flags":
                    flags = octal(c);
                    flagsSeen = true;
                    end(c, key);
                    break;
                case "mnt_id":
                    mnt = OptionalInt.of(c.decimalInt());
                    end(c, key);
                    break;
                case "ino":
                    ino = OptionalLong.of(c.unsignedDecimal());
                    end(c, key);
                    break;
                default:
                    break;
            }
            c.nextLine();
        }
        if (!posSeen || !flagsSeen) {
            throw new ProcfsParseException(source, new String(buf, 0, Math.min(len, 80), StandardCharsets.ISO_8859_1),
                    "missing the pos: or flags: line");
        }
        return new Fdinfo(pos, bits.decode(flags), mnt, ino);
    }

    private static void end(ByteCursor c, String key) {
        c.skipBlanks();
        if (!c.atLineEnd()) {
            throw c.fail("unexpected text after the value of " + key);
        }
    }

    /** Parses an octal number of up to 32 bits (the kernel prints {@code 0%o}). */
    private static int octal(ByteCursor c) {
        int start = c.position();
        long v = 0;
        while (!c.atEnd() && c.peek() >= '0' && c.peek() <= '7') {
            v = (v << 3) | (c.next() - '0');
            if (v > 0xffff_ffffL) {
                throw c.failAt(start, "octal flags out of range");
            }
        }
        if (c.position() == start) {
            throw c.fail("expected an octal number");
        }
        return (int) v;
    }
}
