package io.github.procscope.linux.parse;

import io.github.procscope.api.process.ResourceLimit;
import io.github.procscope.api.process.ResourceLimits;
import io.github.procscope.linux.sys.ByteCursor;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * Parser of {@code /proc/PID/limits} ({@code proc_pid_limits} in {@code fs/proc/base.c}): a heading line, then one
 * line per limit printed as {@code "%-25s %-20s %-20s %-10s\n"}: the name (which holds spaces) padded to 25
 * columns, the soft and hard limits (a decimal number or {@code unlimited}), and the unit, left out for the
 * limits that have none:
 * <pre>
 * Limit                     Soft Limit           Hard Limit           Units
 * Max open files            1024                 524288               files
 * Max nice priority         0                    0
 * </pre>
 * A value at or above 2^63 (up to 2^64-2; {@code RLIM_INFINITY} is printed as {@code unlimited}) limits nothing a
 * machine has, and is read as unlimited.
 */
public final class LimitsParser {
    /** The width of the name column, padding included, before the separating space. */
    private static final int NAME_WIDTH = 25;

    private LimitsParser() {
    }

    public static ResourceLimits parse(Path source, byte[] buf, int len) {
        ByteCursor c = new ByteCursor(source, buf, len);
        if (c.atEnd()) {
            throw c.fail("no heading line");
        }
        String heading = c.word();
        if (!heading.equals("Limit")) {
            throw c.fail("expected the heading line, starting with Limit");
        }
        c.nextLine();
        List<ResourceLimit> limits = new ArrayList<>(16);
        while (!c.atEnd()) {
            int start = c.position();
            int nameEnd = start;
            while (nameEnd < c.end() && nameEnd - start < NAME_WIDTH && buf[nameEnd] != '\n') {
                nameEnd++;
            }
            if (nameEnd - start < NAME_WIDTH) {
                throw c.fail("a limit line shorter than its name column");
            }
            String name = ByteCursor.text(buf, start, nameEnd).strip();
            if (name.isEmpty()) {
                throw c.fail("a limit without a name");
            }
            c.position(nameEnd);
            c.skipBlanks();
            OptionalLong soft = value(c);
            c.skipBlanks();
            OptionalLong hard = value(c);
            c.skipBlanks();
            Optional<String> unit = Optional.empty();
            if (!c.atLineEnd()) {
                unit = Optional.of(c.word());
                c.skipBlanks();
                if (!c.atLineEnd()) {
                    throw c.fail("expected the end of the line after the unit");
                }
            }
            limits.add(new ResourceLimit(name, soft, hard, unit));
            c.nextLine();
        }
        return new ResourceLimits(limits);
    }

    private static OptionalLong value(ByteCursor c) {
        int p = c.peek();
        if (p == 'u') {
            int at = c.position();
            if (!c.word().equals("unlimited")) {
                throw c.failAt(at, "expected a number or unlimited");
            }
            return OptionalLong.empty();
        }
        if (p < '0' || p > '9') {
            throw c.fail("expected a number or unlimited");
        }
        long v = c.unsignedDecimal();
        return v < 0 ? OptionalLong.empty() : OptionalLong.of(v);
    }
}
