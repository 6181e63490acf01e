package io.github.procscope.api.gpu;

import java.util.OptionalDouble;
import java.util.OptionalInt;
import java.util.OptionalLong;

/**
 * Formats samples as {@code nvidia-smi dmon} prints them: one fixed-width line per GPU per interval,
 * under a two-line header of names and units, with {@code -} for a figure the GPU does not report.
 *
 * <pre>
 * # gpu    pwr  gtemp     sm    mem      fb   mclk   pclk
 * # Idx      W      C      %      %     MiB    MHz    MHz
 *     0    245     71     98     45   30512   1593   1410
 * </pre>
 *
 * Columns: index, power draw (W), GPU temperature (C), GPU utilization ({@code sm}, a duty cycle),
 * memory utilization ({@code mem}, the read/write duty cycle), frame buffer used (MiB), memory clock and
 * SM clock (MHz).
 */
public final class DmonFormat {
    private static final String FORMAT = "%5s %6s %6s %6s %6s %7s %6s %6s";
    private static final String HEADER_FORMAT = "#%4s %6s %6s %6s %6s %7s %6s %6s";

    private DmonFormat() {
    }

    /** {@return the two header lines, joined by a newline (no trailing newline)} */
    public static String header() {
        return String.format(HEADER_FORMAT, "gpu", "pwr", "gtemp", "sm", "mem", "fb", "mclk", "pclk")
                + "\n" + String.format(HEADER_FORMAT, "Idx", "W", "C", "%", "%", "MiB", "MHz", "MHz");
    }

    /**
     * {@return its line (no trailing newline)}
     *
     * @param s a sample
     */
    public static String row(GpuSample s) {
        return String.format(FORMAT, s.deviceIndex(), watts(s.powerDrawWatts()), num(s.temperatureCelsius()),
                num(s.gpuUtilizationPercent()), num(s.memoryUtilizationPercent()), mib(s.memoryUsedBytes()),
                num(s.memoryClockMhz()), num(s.smClockMhz()));
    }

    private static String num(OptionalInt v) {
        return v.isPresent() ? Integer.toString(v.getAsInt()) : "-";
    }

    private static String watts(OptionalDouble v) {
        return v.isPresent() ? Long.toString(Math.round(v.getAsDouble())) : "-";
    }

    private static String mib(OptionalLong v) {
        return v.isPresent() ? Long.toString(v.getAsLong() >> 20) : "-";
    }
}
