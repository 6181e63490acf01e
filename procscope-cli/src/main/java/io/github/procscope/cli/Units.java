package io.github.procscope.cli;

import java.math.BigDecimal;
import java.math.RoundingMode;
import java.time.Duration;

/**
 * How the tool writes sizes and durations for people. Written by hand rather than with {@code String.format}:
 * the formatter's first use loads the JDK's locale data, a noticeable part of a one-shot command's start-up.
 */
final class Units {
    private Units() {
    }

    /** @return {@code ps}'s ELAPSED form: {@code [[DD-]hh:]mm:ss} */
    static String elapsed(Duration d) {
        long s = Math.max(0, d.getSeconds());
        long days = s / 86_400;
        long h = (s / 3600) % 24;
        long m = (s / 60) % 60;
        long sec = s % 60;
        StringBuilder sb = new StringBuilder(16);
        if (days > 0) {
            sb.append(days).append('-');
        }
        if (days > 0 || h > 0) {
            twoDigits(sb, h).append(':');
        }
        return twoDigits(twoDigits(sb, m).append(':'), sec).toString();
    }

    private static StringBuilder twoDigits(StringBuilder sb, long v) {
        return (v < 10 ? sb.append('0') : sb).append(v);
    }

    /**
     * @return {@code v} with {@code scale} decimals, rounded half up from its shortest decimal form, as
     *         {@code String.format("%.Nf")} writes it ({@code NaN} and the infinities as Java writes them)
     */
    static String decimal(double v, int scale) {
        if (!Double.isFinite(v)) {
            return Double.toString(v);
        }
        String s = BigDecimal.valueOf(v).setScale(scale, RoundingMode.HALF_UP).toPlainString();
        return v < 0 && s.charAt(0) != '-' ? "-" + s : s;
    }

    /** @return an uptime in words that cannot be read as a clock time: {@code 12 min}, {@code 3 h 5 min}, {@code 2 days 4 h} */
    static String uptime(Duration d) {
        long s = Math.max(0, d.getSeconds());
        long days = s / 86_400;
        long h = (s / 3600) % 24;
        long m = (s / 60) % 60;
        if (days > 0) {
            return days + (days == 1 ? " day " : " days ") + h + " h";
        }
        if (h > 0) {
            return h + " h " + m + " min";
        }
        return m > 0 ? m + " min" : s + " s";
    }

    /** @return bytes in binary units with one decimal: {@code 512B}, {@code 1.5K}, {@code 37.3G} */
    static String bytes(long b) {
        if (b < 1024) {
            return b + "B";
        }
        String units = "KMGTPE";
        double v = b;
        int u = -1;
        while (v >= 1024 && u < units.length() - 1) {
            v /= 1024;
            u++;
        }
        return decimal(v, v >= 100 ? 0 : 1) + units.charAt(u);
    }

    /** @return seconds with up to three decimals, as JSON durations are written */
    static double seconds(Duration d) {
        return d.toMillis() / 1000.0;
    }

    /** @return a percentage with one decimal */
    static String percent(double p) {
        return decimal(p, 1);
    }
}
