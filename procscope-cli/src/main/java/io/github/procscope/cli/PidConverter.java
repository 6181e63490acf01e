package io.github.procscope.cli;

import io.github.procscope.api.Pids;
import picocli.CommandLine;

/** Converts a command-line pid, refusing 0, negatives, huge values and text with a clear message. */
final class PidConverter implements CommandLine.ITypeConverter<Long> {
    @Override
    public Long convert(String value) {
        long pid;
        try {
            pid = Long.parseLong(value.trim());
        } catch (NumberFormatException e) {
            throw new CommandLine.TypeConversionException("'" + value + "' is not a pid (a positive whole number)");
        }
        try {
            return Pids.requireValid(pid);
        } catch (IllegalArgumentException e) {
            throw new CommandLine.TypeConversionException(e.getMessage());
        }
    }
}
