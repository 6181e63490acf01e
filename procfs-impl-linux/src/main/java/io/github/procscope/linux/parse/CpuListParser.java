package io.github.procscope.linux.parse;

import io.github.procscope.linux.sys.ByteCursor;

import java.util.ArrayList;
import java.util.List;

/**
 * The kernel's list format for CPU and node sets ({@code 0-3,5,7-8}), as printed by
 * {@code Cpus_allowed_list} and {@code /sys/devices/system/cpu/online}: comma-separated numbers and
 * inclusive ranges, ascending.
 */
final class CpuListParser {
    /** More CPUs than any kernel supports ({@code NR_CPUS} is at most 8192): a guard against absurd ranges. */
    private static final int MAX_CPUS = 1 << 16;

    private CpuListParser() {
    }

    /** Parses from the cursor to the end of the line. */
    static List<Integer> parse(ByteCursor c) {
        List<Integer> out = new ArrayList<>();
        c.skipBlanks();
        while (!c.atLineEnd() && c.peek() != ' ' && c.peek() != '\t') {
            long lo = c.unsignedDecimal();
            long hi = lo;
            if (c.skipIf('-')) {
                hi = c.unsignedDecimal();
            }
            if (lo < 0 || hi < lo || hi >= MAX_CPUS) {
                throw c.fail("bad CPU range " + lo + "-" + hi);
            }
            for (long i = lo; i <= hi; i++) {
                out.add((int) i);
            }
            if (!c.skipIf(',')) {
                break;
            }
        }
        return out;
    }
}
