package io.github.procscope.cli;

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
     *         {@code String.format("%.Nf")} writes it ({@code NaN} and the infinities as Java writes them).
     *         Digit by digit on {@link Double#toString}'s digits: {@code BigDecimal}'s first use costs a
     *         one-shot command more than its whole snapshot.
     */
    static String decimal(double v, int scale) {
        if (!Double.isFinite(v)) {
            return Double.toString(v);
        }
        String s = Double.toString(Math.abs(v)); // d.ddd or d.dddE[-]n
        int e = s.indexOf('E');
        String mantissa = e < 0 ? s : s.substring(0, e);
        int dot = mantissa.indexOf('.');
        StringBuilder digits = new StringBuilder(mantissa.length() + 24).append(mantissa, 0, dot)
                .append(mantissa, dot + 1, mantissa.length());
        int point = dot + (e < 0 ? 0 : Integer.parseInt(s.substring(e + 1))); // digits before the point
        while (point < 1) {
            digits.insert(0, '0');
            point++;
        }
        int keep = point + scale;
        while (digits.length() <= keep) {
            digits.append('0');
        }
        boolean up = digits.charAt(keep) >= '5';
        digits.setLength(keep);
        for (int i = keep - 1; up && i >= 0; i--) {
            char c = digits.charAt(i);
            if (c == '9') {
                digits.setCharAt(i, '0');
            } else {
                digits.setCharAt(i, (char) (c + 1));
                up = false;
            }
        }
        if (up) {
            digits.insert(0, '1');
            point++;
            keep++;
        }
        int lead = 0;
        while (lead < point - 1 && digits.charAt(lead) == '0') {
            lead++;
        }
        StringBuilder out = new StringBuilder(digits.length() + 2);
        if (Double.doubleToRawLongBits(v) < 0) {
            out.append('-');
        }
        out.append(digits, lead, point);
        if (scale > 0) {
            out.append('.').append(digits, point, keep);
        }
        return out.toString();
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
