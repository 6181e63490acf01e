package io.github.procscope.benchmarks;

import io.github.procscope.api.Procscope;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;

/**
 * Writes the cross-JDK section of BENCHMARKS.md from what {@code benchmarks/run.sh} measured per JDK in
 * {@code benchmarks/results/jdks/}: start-up of {@code procscope ps} against a hello-world JVM (interleaved
 * rounds), the first {@code Procscope.system().signals()} per native back end, and the snapshot against the C reference
 * and OSHI (JMH, with the gc profiler). Every figure is a median; ratios are same-run ratios.
 */
public final class JdkReport {
    private static final List<String> SIZES = List.of("100", "1000", "5000");

    private final Path dir;
    private final List<Integer> jdks;

    JdkReport(Path dir, List<Integer> jdks) {
        this.dir = dir;
        this.jdks = jdks;
    }

    /**
     * @param args {@code DIR OUT JDK...}: the results directory, the markdown file to write, the JDK feature
     *             versions measured
     */
    public static void main(String[] args) {
        if (args.length < 3) {
            System.err.println("usage: JdkReport DIR OUT JDK...");
            System.exit(2);
        }
        List<Integer> jdks = new ArrayList<>();
        for (int i = 2; i < args.length; i++) {
            jdks.add(Integer.parseInt(args[i]));
        }
        String text = new JdkReport(Path.of(args[0]), jdks).render();
        try {
            Files.writeString(Path.of(args[1]), text, StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private List<String> lines(String name) {
        Path f = dir.resolve(name);
        try {
            return Files.exists(f) ? Files.readAllLines(f, StandardCharsets.UTF_8) : List.of();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** @return column {@code col} of every line, as numbers */
    private double[] column(List<String> lines, int col) {
        return lines.stream().map(String::trim).filter(l -> !l.isEmpty() && !l.startsWith("#"))
                .map(l -> l.split("\\s+")).filter(f -> f.length > col).mapToDouble(f -> Double.parseDouble(f[col]))
                .toArray();
    }

    private static double median(double[] v) {
        if (v.length == 0) {
            return Double.NaN;
        }
        double[] s = v.clone();
        Arrays.sort(s);
        return s.length % 2 == 1 ? s[s.length / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
    }

    private static String ms(double nanos) {
        return Double.isNaN(nanos) ? "n/a" : String.format(Locale.ROOT, "%.1f ms", nanos / 1e6);
    }

    private static String x(double r) {
        return Double.isNaN(r) ? "n/a" : String.format(Locale.ROOT, "%.2f×", r);
    }

    private static String verdict(double v, boolean ok) {
        return Double.isNaN(v) ? "not measured" : ok ? "met" : "**not met**";
    }

    String render() {
        StringBuilder md = new StringBuilder();
        md.append("## JDK 17 and JDK 25: start-up, first signal, snapshot\n\n");
        md.append("Measured by `benchmarks/run.sh` (or `benchmarks/run.sh --jdks` for this section alone) on each JDK: "
                + "JDK 17 uses the jnr back end of the native wall, JDK 25 the FFM one. Same machine and load as the "
                + "rest of this file; every figure is a median, every ratio a ratio within one run.\n\n");
        for (int jdk : jdks) {
            List<String> v = lines("jdk" + jdk + ".version");
            md.append("- JDK ").append(jdk).append(": ").append(v.isEmpty() ? "?" : v.get(0)).append('\n');
        }
        md.append('\n');

        md.append("### Start-up: `procscope ps` against a hello-world JVM\n\n");
        md.append("Whole processes, wall time, rounds interleaved (hello, `ps` through the launcher with its class-data "
                + "archive, `ps` without it), same JVM flags. Goal: `ps` ≤ 3× hello.\n\n");
        md.append("| JDK | rounds | hello world | `procscope ps` | ratio | median of per-round ratios | `ps` without archive | ratio | goal ≤ 3× |\n");
        md.append("|---|---|---|---|---|---|---|---|---|\n");
        for (int jdk : jdks) {
            List<String> l = lines("jdk" + jdk + ".startup");
            double[] hello = column(l, 1);
            double[] ps = column(l, 2);
            double[] bare = column(l, 3);
            double[] perRound = new double[Math.min(hello.length, ps.length)];
            for (int i = 0; i < perRound.length; i++) {
                perRound[i] = ps[i] / hello[i];
            }
            double ratio = median(ps) / median(hello);
            md.append("| ").append(jdk).append(" | ").append(hello.length).append(" | ").append(ms(median(hello)))
                    .append(" | ").append(ms(median(ps))).append(" | ").append(x(ratio)).append(" | ")
                    .append(x(median(perRound))).append(" | ").append(ms(median(bare))).append(" | ")
                    .append(x(median(bare) / median(hello))).append(" | ").append(verdict(ratio, ratio <= 3))
                    .append(" |\n");
        }
        md.append('\n');

        md.append("### First `Procscope.system().signals()`\n\n");
        md.append("A fresh JVM per run (`FirstSignalProbe`): the call that binds the C library through the JVM's back "
                + "end, then the first `send` (CONT to a child), as wall time and as the calling thread's CPU time "
                + "(less inflated by a loaded machine; work on other threads is not in it). Goal on the FFM path: "
                + "≤ 30 ms.\n\n");
        md.append("| JDK | back end | runs | `Procscope.system().signals()` | first `send` | `Procscope.system().signals()` CPU | first `send` CPU"
                + " | goal ≤ 30 ms (FFM) |\n");
        md.append("|---|---|---|---|---|---|---|---|\n");
        for (int jdk : jdks) {
            for (String backEnd : List.of("ffm", "jnr")) {
                List<String> l = lines("jdk" + jdk + "-" + backEnd + ".signal");
                if (l.isEmpty()) {
                    continue;
                }
                double sys = median(column(l, 0));
                double send = median(column(l, 1));
                double[] sysCpu = column(l, 2);
                double[] sendCpu = column(l, 3);
                md.append("| ").append(jdk).append(" | ").append(backEnd).append(" | ").append(column(l, 0).length)
                        .append(" | ").append(ms(sys)).append(" | ").append(ms(send)).append(" | ")
                        .append(sysCpu.length > 0 ? ms(median(sysCpu)) : "—").append(" | ")
                        .append(sendCpu.length > 0 ? ms(median(sendCpu)) : "—").append(" | ")
                        .append(backEnd.equals("ffm") ? verdict(sys, sys <= 30e6) : "—").append(" |\n");
            }
        }
        // A note kept beside the figures when they were measured apart from the rest (say, after a change
        // to the back end alone), naming when and under what load.
        List<String> note = lines("signal.note");
        if (!note.isEmpty()) {
            md.append('\n').append(String.join("\n", note)).append('\n');
        }
        md.append('\n');

        md.append("### Snapshot against C and OSHI\n\n");
        md.append("JMH `SnapshotBenchmark` (average time, gc profiler) with N idle processes started besides the "
                + "system's: procscope's full snapshot, the C reference that reads the same files (stat + statm + owner, "
                + "`cEqualWork`) and OSHI 7.5.0's `getProcesses()`. Goals: ≤ 1.2× C, ≥ 8× faster than OSHI, ≤ 256 B "
                + "of garbage per process, cost per process flat to 5,000. *Records* is what a snapshot hands back per "
                + "process (measured as in the main report); *garbage* is the allocation beyond it.\n\n");
        md.append("| JDK | N | processes | procscope | C (equal work) | procscope / C | OSHI | OSHI / procscope | records per process | garbage per process | per process |\n");
        md.append("|---|---|---|---|---|---|---|---|---|---|---|\n");
        for (int jdk : jdks) {
            Path json = dir.resolve("jdk" + jdk + ".json");
            if (!Files.exists(json)) {
                continue;
            }
            JmhResults r = JmhResults.read(json);
            Map<Integer, Report.CensusEntry> census = Report.readCensus(lines("jdk" + jdk + ".census"));
            for (String n : SIZES) {
                Optional<JmhResults.Result> p = r.find("SnapshotBenchmark.procscope", n);
                if (p.isEmpty()) {
                    continue;
                }
                double ps = p.get().medianNanos();
                double c = r.find("SnapshotBenchmark.cEqualWork", n).map(JmhResults.Result::medianNanos).orElse(Double.NaN);
                double oshi = r.find("SnapshotBenchmark.oshi", n).map(JmhResults.Result::medianNanos).orElse(Double.NaN);
                Report.CensusEntry e = census.get(Integer.parseInt(n));
                int processes = e == null ? Integer.parseInt(n) : e.processes();
                // Garbage: what a snapshot allocates beyond the records it hands back (measured in the census,
                // as in the main report's "beyond records"); without a census entry, the allocation alone.
                double alloc = p.get().medianAllocBytes().orElse(Double.NaN);
                double garbage = (e == null ? alloc : alloc - e.recordBytes()) / processes;
                double records = e == null ? Double.NaN : (double) e.recordBytes() / processes;
                md.append("| ").append(jdk).append(" | ").append(n).append(" | ").append(processes).append(" | ")
                        .append(us(ps)).append(" | ").append(us(c)).append(" | ").append(x(ps / c)).append(" | ")
                        .append(us(oshi)).append(" | ").append(x(oshi / ps)).append(" | ")
                        .append(Double.isNaN(records) ? "n/a" : String.format(Locale.ROOT, "%.0f B", records))
                        .append(" | ")
                        .append(Double.isNaN(garbage) ? "n/a" : String.format(Locale.ROOT, "%.0f B", garbage))
                        .append(" | ").append(String.format(Locale.ROOT, "%.2f µs", ps / processes / 1e3)).append(" |\n");
            }
        }
        md.append('\n');
        return md.toString();
    }

    private static String us(double nanos) {
        return Double.isNaN(nanos) ? "n/a" : String.format(Locale.ROOT, "%,.0f µs", nanos / 1e3);
    }
}
