package io.github.procscope.cli;

import io.github.procscope.api.core.Pids;
import picocli.CommandLine;

/**
 * Converts a command-line pid: ASCII digits only (no spaces, no sign, no other scripts' digits such as
 * full-width {@code ４２}), refusing 0 and values above the kernel's limit with a clear message.
 */
final class PidConverter implements CommandLine.ITypeConverter<Long> {
    @Override
    public Long convert(String value) {
        if (value.isEmpty() || !asciiDigits(value)) {
            throw new CommandLine.TypeConversionException("'" + value + "' is not a pid (a positive whole number"
                    + " written with the digits 0-9 only: no spaces, no sign)");
        }
        if (value.length() > 12) {
            throw new CommandLine.TypeConversionException("invalid pid " + value + ": Linux pids are at most "
                    + Pids.PID_MAX_LIMIT + " (PID_MAX_LIMIT)");
        }
        long pid = Long.parseLong(value);
        try {
            return Pids.requireValid(pid);
        } catch (IllegalArgumentException e) {
            // Name the value as it was typed ("00", "0042"), not only as the number it reads as.
            throw new CommandLine.TypeConversionException(value.equals(Long.toString(pid)) ? e.getMessage()
                    : "'" + value + "': " + e.getMessage());
        }
    }

    private static boolean asciiDigits(String s) {
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c < '0' || c > '9') {
                return false;
            }
        }
        return true;
    }
}
