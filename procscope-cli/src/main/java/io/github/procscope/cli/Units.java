package io.github.procscope.cli;

import java.time.Duration;
import java.util.Locale;

/** How the tool writes sizes and durations for people. */
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
        if (days > 0) {
            return String.format(Locale.ROOT, "%d-%02d:%02d:%02d", days, h, m, sec);
        }
        if (h > 0) {
            return String.format(Locale.ROOT, "%02d:%02d:%02d", h, m, sec);
        }
        return String.format(Locale.ROOT, "%02d:%02d", m, sec);
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
        return String.format(Locale.ROOT, v >= 100 ? "%.0f%c" : "%.1f%c", v, units.charAt(u));
    }

    /** @return seconds with up to three decimals, as JSON durations are written */
    static double seconds(Duration d) {
        return d.toMillis() / 1000.0;
    }

    /** @return a percentage with one decimal */
    static String percent(double p) {
        return String.format(Locale.ROOT, "%.1f", p);
    }
}
