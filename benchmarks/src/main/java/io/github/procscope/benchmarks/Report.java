package io.github.procscope.benchmarks;

import io.github.procscope.api.Procscope;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalDouble;
import java.util.TreeMap;

/**
 * Writes {@code BENCHMARKS.md} from one JMH run: the machine, the command, a table of medians and ratios per
 * measurement, the targets met or missed, and the hand-written history of what the numbers changed.
 *
 * <pre>
 * java -cp benchmarks.jar io.github.procscope.benchmarks.Report --results latest.json --census latest.census
 *     --machine latest.machine --changes changes.md --command "benchmarks/run.sh" --out BENCHMARKS.md
 * </pre>
 */
public final class Report {
    /** The fleet sizes, in order. */
    static final List<String> SIZES = List.of("100", "1000", "5000");
    /** The fleet size the targets are judged at. */
    static final String TARGET_SIZE = "1000";
    static final double FLOOR_TARGET = 1.5;
    static final double OSHI_TARGET = 5;
    static final double BEYOND_TARGET_BYTES = 2048;
    static final double LINEAR_TOLERANCE = 1.25;

    private static final String SNAPSHOT = "SnapshotBenchmark.";

    private final JmhResults results;
    private final Map<Integer, CensusEntry> census;

    /**
     * One line of the census for the procscope snapshot at one fleet size.
     *
     * @param processes   processes in a snapshot with the fleet up
     * @param recordBytes bytes of the records one snapshot returned
     * @param sizeMethod  how the sizes were obtained
     */
    record CensusEntry(int processes, long recordBytes, String sizeMethod) {
    }

    Report(JmhResults results, Map<Integer, CensusEntry> census) {
        this.results = results;
        this.census = census;
    }

    /**
     * @param args {@code --results FILE --census FILE --machine FILE --changes FILE --command TEXT --out FILE}
     */
    public static void main(String[] args) {
        Map<String, String> opts = new TreeMap<>();
        for (int i = 0; i + 1 < args.length; i += 2) {
            opts.put(args[i], args[i + 1]);
        }
        for (String required : List.of("--results", "--census", "--machine", "--changes", "--command", "--out")) {
            if (!opts.containsKey(required)) {
                System.err.println("usage: Report --results FILE --census FILE --machine FILE --changes FILE"
                        + " --command TEXT --out FILE (missing " + required + ")");
                System.exit(2);
            }
        }
        Report report = new Report(JmhResults.read(Path.of(opts.get("--results"))),
                readCensus(lines(Path.of(opts.get("--census")))));
        String md = report.render(lines(Path.of(opts.get("--machine"))), read(Path.of(opts.get("--changes"))),
                opts.get("--command"), Path.of(opts.get("--results")).getFileName().toString());
        try {
            Files.writeString(Path.of(opts.get("--out")), md, StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static String read(Path file) {
        try {
            return Files.readString(file, StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read " + file, e);
        }
    }

    private static List<String> lines(Path file) {
        return Files.exists(file) ? read(file).lines().toList() : List.of();
    }

    /**
     * @param lines the census file's lines ({@link Census})
     * @return the procscope snapshot's entry per fleet size (the last line for a size wins)
     */
    static Map<Integer, CensusEntry> readCensus(List<String> lines) {
        Map<Integer, CensusEntry> out = new TreeMap<>();
        for (String line : lines) {
            String[] f = line.split("\t");
            if (f.length >= 5 && f[0].endsWith(SNAPSHOT + "procscope")) {
                out.put(Integer.parseInt(f[1]), new CensusEntry(Integer.parseInt(f[2]), Long.parseLong(f[3]), f[4]));
            }
        }
        return out;
    }

    // ---------------------------------------------------------------- figures

    private OptionalDouble nanos(String benchmark, String size) {
        return results.find(benchmark, size).map(r -> OptionalDouble.of(r.medianNanos())).orElse(OptionalDouble.empty());
    }

    private OptionalDouble alloc(String benchmark, String size) {
        return results.find(benchmark, size).flatMap(JmhResults.Result::medianAllocBytes)
                .map(OptionalDouble::of).orElse(OptionalDouble.empty());
    }

    private static OptionalDouble ratio(OptionalDouble a, OptionalDouble b) {
        return a.isPresent() && b.isPresent() && b.getAsDouble() > 0 ? OptionalDouble.of(a.getAsDouble() / b.getAsDouble())
                : OptionalDouble.empty();
    }

    /** @return processes in the snapshot at a fleet size: the census, or the fleet size when it is missing */
    int processes(String size) {
        CensusEntry e = census.get(Integer.parseInt(size));
        return e != null ? e.processes() : Integer.parseInt(size);
    }

    /** @return procscope's snapshot time divided by the C floor's */
    OptionalDouble floorRatio(String size) {
        return ratio(nanos(SNAPSHOT + "procscope", size), nanos(SNAPSHOT + "cFloor", size));
    }

    /** @return procscope's snapshot time divided by the equal-work C reference's */
    OptionalDouble equalWorkRatio(String size) {
        return ratio(nanos(SNAPSHOT + "procscope", size), nanos(SNAPSHOT + "cEqualWork", size));
    }

    /** @return how many times faster than {@code peer} procscope's snapshot is */
    OptionalDouble speedup(String peer, String size) {
        return ratio(nanos(SNAPSHOT + peer, size), nanos(SNAPSHOT + "procscope", size));
    }

    /** @return bytes allocated per snapshot beyond the returned records, per process */
    OptionalDouble beyondRecordsPerProcess(String size) {
        OptionalDouble a = alloc(SNAPSHOT + "procscope", size);
        CensusEntry e = census.get(Integer.parseInt(size));
        if (a.isEmpty() || e == null) {
            return OptionalDouble.empty();
        }
        return OptionalDouble.of((a.getAsDouble() - e.recordBytes()) / e.processes());
    }

    /** @return time per process in nanoseconds: the snapshot time divided by the processes it held */
    OptionalDouble perProcess(String method, String size) {
        OptionalDouble t = nanos(SNAPSHOT + method, size);
        return t.isPresent() ? OptionalDouble.of(t.getAsDouble() / processes(size)) : OptionalDouble.empty();
    }

    /** @return the marginal cost in nanoseconds of one more process between two fleet sizes */
    OptionalDouble marginal(String method, String from, String to) {
        OptionalDouble a = nanos(SNAPSHOT + method, from);
        OptionalDouble b = nanos(SNAPSHOT + method, to);
        int dp = processes(to) - processes(from);
        if (a.isEmpty() || b.isEmpty() || dp <= 0) {
            return OptionalDouble.empty();
        }
        return OptionalDouble.of((b.getAsDouble() - a.getAsDouble()) / dp);
    }

    /** @return the marginal cost from 1,000 to 5,000 processes divided by that from 100 to 1,000 */
    OptionalDouble growth(String method) {
        return ratio(marginal(method, "1000", "5000"), marginal(method, "100", "1000"));
    }

    /** A target, what was measured, and whether it was met. */
    record Verdict(String target, String measured, Optional<Boolean> met) {
        String word() {
            return met.map(m -> m ? "**met**" : "**missed**").orElse("not measured");
        }
    }

    /** @return the four targets of the issue, judged at N = 1,000 */
    List<Verdict> verdicts() {
        List<Verdict> out = new ArrayList<>();
        OptionalDouble floor = floorRatio(TARGET_SIZE);
        out.add(new Verdict("snapshot within " + FLOOR_TARGET + "× of the C floor", times(floor),
                judge(floor, v -> v <= FLOOR_TARGET)));
        OptionalDouble oshi = speedup("oshi", TARGET_SIZE);
        out.add(new Verdict("at least " + (int) OSHI_TARGET + "× faster than OSHI", oshi.isPresent()
                ? times(oshi) + " faster" : "—", judge(oshi, v -> v >= OSHI_TARGET)));
        OptionalDouble beyond = beyondRecordsPerProcess(TARGET_SIZE);
        out.add(new Verdict("at most 2 KiB allocated per process beyond the returned records",
                beyond.isPresent() ? bytes(beyond.getAsDouble()) + " per process" : "—",
                judge(beyond, v -> v <= BEYOND_TARGET_BYTES)));
        OptionalDouble growth = growth("procscope");
        OptionalDouble floorGrowth = growth("cFloor");
        out.add(new Verdict("cost linear in N (marginal cost per process from 1,000 to 5,000 at most "
                + LINEAR_TOLERANCE + "× that from 100 to 1,000)", growth.isPresent()
                ? times(growth) + " (C floor: " + times(floorGrowth) + ")" : "—",
                judge(growth, v -> v <= LINEAR_TOLERANCE)));
        return out;
    }

    private static Optional<Boolean> judge(OptionalDouble v, java.util.function.DoublePredicate ok) {
        return v.isPresent() ? Optional.of(ok.test(v.getAsDouble())) : Optional.empty();
    }

    // ---------------------------------------------------------------- formatting

    static String time(OptionalDouble nanos) {
        if (nanos.isEmpty() || Double.isNaN(nanos.getAsDouble())) {
            return "—";
        }
        double ns = nanos.getAsDouble();
        if (Math.abs(ns) >= 1e6) {
            return String.format(Locale.ROOT, "%.2f ms", ns / 1e6);
        }
        if (Math.abs(ns) >= 1e3) {
            return String.format(Locale.ROOT, "%.1f µs", ns / 1e3);
        }
        return String.format(Locale.ROOT, "%.0f ns", ns);
    }

    static String times(OptionalDouble ratio) {
        return ratio.isPresent() ? String.format(Locale.ROOT, "%.2f×", ratio.getAsDouble()) : "—";
    }

    static String bytes(double b) {
        return String.format(Locale.ROOT, "%,.0f B", b);
    }

    static String bytes(OptionalDouble b) {
        return b.isPresent() ? bytes(b.getAsDouble()) : "—";
    }

    static String count(long n) {
        return String.format(Locale.ROOT, "%,d", n);
    }

    private int iterations(String benchmark, String size) {
        return results.find(benchmark, size).map(JmhResults.Result::iterations).orElse(0);
    }

    // ---------------------------------------------------------------- rendering

    /**
     * @param machine     lines "key: value" describing the machine and versions
     * @param changes     the hand-written history, copied verbatim
     * @param command     the command that reproduces the run
     * @param resultsName the raw JSON's file name
     * @return the Markdown text of BENCHMARKS.md
     */
    String render(List<String> machine, String changes, String command, String resultsName) {
        StringBuilder md = new StringBuilder();
        md.append("# procscope benchmarks\n\n");
        md.append("Written by `benchmarks/run.sh` from one JMH run; the raw results are `benchmarks/results/")
                .append(resultsName).append("`. Every figure is a **median of iteration scores**: for")
                .append(" average-time benchmarks the median of the iterations' averages, for whole-process")
                .append(" timings (single-shot) the median of the runs. Ratios are ratios of those medians.")
                .append(" Allocation is JMH's gc profiler (`gc.alloc.rate.norm`, bytes per operation), also the")
                .append(" median over iterations.\n\n");

        md.append("## Machine\n\n| | |\n|---|---|\n");
        for (String line : machine) {
            int colon = line.indexOf(':');
            if (colon > 0) {
                md.append("| ").append(line, 0, colon).append(" | ").append(line.substring(colon + 1).strip())
                        .append(" |\n");
            }
        }
        md.append("\n## Reproduce\n\n```\n").append(command).append("\n```\n\n");
        md.append("`benchmarks/run.sh --quick` is a smoke test (short iterations, N = 100 only); its numbers are"
                + " not for comparison.\n\n");

        md.append("## Targets (at N = 1,000)\n\n| target | measured | verdict |\n|---|---|---|\n");
        for (Verdict v : verdicts()) {
            md.append("| ").append(v.target()).append(" | ").append(v.measured()).append(" | ").append(v.word())
                    .append(" |\n");
        }

        renderSnapshot(md);
        renderAllocation(md);
        renderGrowth(md);
        renderDepth(md);
        renderDeleted(md);
        renderNvml(md);

        md.append("\n## What changed because of these numbers\n\n");
        md.append("(From `benchmarks/changes.md`, written by hand.)\n\n");
        md.append(changes.strip()).append("\n");
        return md.toString();
    }

    private void renderSnapshot(StringBuilder md) {
        md.append("\n## Full snapshot (the `ps -e` fields)\n\n");
        md.append("The benchmark starts N idle processes (a C helper forks them; each waits in `pause()`), checks"
                + " that every reader sees them all, and ends each by its pid afterwards. The system's own"
                + " processes come on top, so *processes* is what a snapshot actually held.\n\n");
        md.append("- **procscope**: `Procscope.system().processes().snapshot()` — `/proc/PID/stat`, `/proc/PID/statm` and"
                + " the owner of each process, parsed into records.\n");
        md.append("- **C floor**: for each numeric entry of `/proc`, read and parse `/proc/PID/stat` (comm between"
                + " the first `(` and the last `)`, every numeric field into a struct) and `stat()` `/proc/PID` for"
                + " the owner; gcc -O2, called through JNA from the same JMH harness.\n");
        md.append("- **C equal work**: the floor plus `/proc/PID/statm` (procscope reads it because field 24 of"
                + " `stat`, RSS, is approximate since Linux 6.2).\n");
        md.append("- **OSHI**: `getProcesses()` on an `OperatingSystem` made once.\n");
        md.append("- **ProcessHandle**: `ProcessHandle.allProcesses()` with `parent()` and `info()`'s command,"
                + " user, start instant and CPU time (it has no state, RSS, VSZ or thread count).\n\n");
        md.append("| N (fleet) | processes | procscope | C floor | C equal work | OSHI | ProcessHandle |\n");
        md.append("|---:|---:|---:|---:|---:|---:|---:|\n");
        for (String n : SIZES) {
            md.append("| ").append(count(Long.parseLong(n))).append(" | ").append(count(processes(n)));
            for (String m : List.of("procscope", "cFloor", "cEqualWork", "oshi", "processHandle")) {
                md.append(" | ").append(time(nanos(SNAPSHOT + m, n)));
            }
            md.append(" |\n");
        }
        md.append("\n| N (fleet) | procscope ÷ C floor | procscope ÷ C equal work | OSHI ÷ procscope"
                + " | ProcessHandle ÷ procscope |\n|---:|---:|---:|---:|---:|\n");
        for (String n : SIZES) {
            md.append("| ").append(count(Long.parseLong(n))).append(" | ").append(times(floorRatio(n)))
                    .append(" | ").append(times(equalWorkRatio(n))).append(" | ").append(times(speedup("oshi", n)))
                    .append(" | ").append(times(speedup("processHandle", n))).append(" |\n");
        }
        md.append("\nIterations per figure: ").append(iterations(SNAPSHOT + "procscope", TARGET_SIZE))
                .append(" (one fork).\n");
    }

    private void renderAllocation(StringBuilder md) {
        md.append("\n## Allocation per snapshot\n\n");
        String method = census.values().stream().map(CensusEntry::sizeMethod).findFirst().orElse("—");
        md.append("*Records* is the size of what one procscope snapshot returns: every object reachable from the"
                + " returned `ProcessSnapshot` (its list, each `ProcessInfo`, `ProcessStat`, `ProcessStatm`, their"
                + " strings, `Duration`s and `Optional`s) that was not already reachable from the snapshot before"
                + " it, so that shared constants and caches (enum constants, `Optional.empty()`, cached user names)"
                + " are not counted — exactly the objects the call allocated and handed back. It is measured in"
                + " the benchmark's setup, with the fleet up, as the median of five consecutive snapshots; object"
                + " sizes from ").append(method).append(". *Beyond records* is (allocation per snapshot − records)"
                + " ÷ processes: the garbage a snapshot leaves per process.\n\n");
        md.append("| N (fleet) | processes | procscope alloc/op | records | beyond records, per process"
                + " | OSHI alloc/op | ProcessHandle alloc/op |\n|---:|---:|---:|---:|---:|---:|---:|\n");
        for (String n : SIZES) {
            CensusEntry e = census.get(Integer.parseInt(n));
            md.append("| ").append(count(Long.parseLong(n))).append(" | ").append(count(processes(n)))
                    .append(" | ").append(bytes(alloc(SNAPSHOT + "procscope", n)))
                    .append(" | ").append(e == null ? "—" : bytes(e.recordBytes()))
                    .append(" | ").append(bytes(beyondRecordsPerProcess(n)))
                    .append(" | ").append(bytes(alloc(SNAPSHOT + "oshi", n)))
                    .append(" | ").append(bytes(alloc(SNAPSHOT + "processHandle", n))).append(" |\n");
        }
        CensusEntry e = census.get(Integer.parseInt(TARGET_SIZE));
        if (e != null) {
            md.append("\nRecords per process at N = 1,000: ").append(bytes((double) e.recordBytes() / e.processes()))
                    .append(".\n");
        }
    }

    private void renderGrowth(StringBuilder md) {
        md.append("\n## Growth with N\n\n");
        md.append("Time per process is the snapshot time ÷ the processes it held; the marginal cost is the extra"
                + " time per extra process between two fleet sizes, which leaves fixed costs out. Linear (flat"
                + " per-process cost) means the marginal cost from 1,000 to 5,000 is at most ")
                .append(LINEAR_TOLERANCE).append("× that from 100 to 1,000. Where the C floor grows as well, the"
                        + " growth is the kernel's (more `/proc` entries to list and look up), not the reader's.\n\n");
        md.append("| reader | per process, N = 100 | N = 1,000 | N = 5,000 | marginal 100→1,000 | marginal 1,000→5,000"
                + " | growth of marginal | flat? |\n|---|---:|---:|---:|---:|---:|---:|---|\n");
        for (String[] m : List.of(new String[] {"procscope", "procscope"}, new String[] {"cFloor", "C floor"},
                new String[] {"cEqualWork", "C equal work"}, new String[] {"oshi", "OSHI"},
                new String[] {"processHandle", "ProcessHandle"})) {
            OptionalDouble g = growth(m[0]);
            md.append("| ").append(m[1]);
            for (String n : SIZES) {
                md.append(" | ").append(time(perProcess(m[0], n)));
            }
            md.append(" | ").append(time(marginal(m[0], "100", "1000")))
                    .append(" | ").append(time(marginal(m[0], "1000", "5000")))
                    .append(" | ").append(times(g))
                    .append(" | ").append(g.isEmpty() ? "—" : g.getAsDouble() <= LINEAR_TOLERANCE ? "yes" : "no")
                    .append(" |\n");
        }
    }

    private void renderDepth(StringBuilder md) {
        md.append("\n## One process in depth\n\n");
        md.append("The process is the benchmark JVM itself: a realistic Java process, with its compiler, GC and"
                + " JMH threads, its open jars and pipes, and hundreds of mappings.\n\n");
        md.append("- **procscope**: `ProcessTable.status(pid)`, `ProcessMemory.totals(pid)` (from"
                + " `/proc/PID/smaps_rollup`) and `OpenFiles.fds(pid)` (every descriptor with its target, kind,"
                + " flags and position from `/proc/PID/fd` and `/proc/PID/fdinfo`).\n");
        md.append("- **OSHI**: `getProcess(pid)` (which reads `stat`, `status`, `io`, `cmdline` and the `exe` link"
                + " when it is made), then its state, threads, resident, private and virtual memory, context"
                + " switches, user and `getOpenFiles()` (a count).\n\n");
        md.append("OSHI does not read what procscope does here: no PSS, USS, swap or SwapPss, no private/shared"
                + " clean/dirty split (no `smaps_rollup` at all); for descriptors only a count — no targets, kinds,"
                + " open flags, positions or deleted marks (no `fdinfo`); no signal masks or namespace pids from"
                + " `status`. The two are not equal work; the ratio shows what procscope's extra facts cost.\n\n");
        md.append("| reader | median | alloc/op |\n|---|---:|---:|\n");
        for (String[] m : List.of(new String[] {"procscope", "procscope"}, new String[] {"oshi", "OSHI"})) {
            md.append("| ").append(m[1]).append(" | ").append(time(nanos("DepthBenchmark." + m[0], null)))
                    .append(" | ").append(bytes(alloc("DepthBenchmark." + m[0], null))).append(" |\n");
        }
        md.append("\nOSHI ÷ procscope: ").append(times(ratio(nanos("DepthBenchmark.oshi", null),
                nanos("DepthBenchmark.procscope", null)))).append(".\n");
    }

    private void renderDeleted(StringBuilder md) {
        md.append("\n## Deleted files held open (`lsof +L1`)\n\n");
        md.append("A helper holds eight deleted 1 MiB files open. `lsof +L1` and the command-line tool"
                + " (`./procscope --json deleted`, the launcher at the repository root, which starts a JVM) are timed"
                + " as whole processes, each run started and waited for (single-shot, ")
                .append(iterations("DeletedFilesBenchmark.lsof", null))
                .append(" runs after 3 warm-up runs). The library scan (`OpenFiles.deletedFiles()`) is timed warm,"
                + " inside the benchmark JVM. The system's own processes are scanned; no fleet is up.\n\n");
        md.append("| scan | median |\n|---|---:|\n");
        md.append("| `lsof +L1` | ").append(time(nanos("DeletedFilesBenchmark.lsof", null))).append(" |\n");
        md.append("| `./procscope --json deleted` (whole process) | ")
                .append(time(nanos("DeletedFilesBenchmark.procscopeCli", null))).append(" |\n");
        md.append("| `OpenFiles.deletedFiles()` (warm library) | ")
                .append(time(nanos("DeletedFilesBenchmark.procscopeLibrary", null))).append(" |\n");
        md.append("\nlsof ÷ tool: ").append(times(ratio(nanos("DeletedFilesBenchmark.lsof", null),
                        nanos("DeletedFilesBenchmark.procscopeCli", null))))
                .append("; lsof ÷ warm library: ").append(times(ratio(nanos("DeletedFilesBenchmark.lsof", null),
                        nanos("DeletedFilesBenchmark.procscopeLibrary", null)))).append(".\n");
    }

    private void renderNvml(StringBuilder md) {
        md.append("\n## NVML: one full device sample\n\n");
        md.append("`GpuDevice.sample()` through procscope's JNA binding against the same NVML calls made"
                + " directly from C (gcc -O2, one JNA call into it per sample), both on the NVML test double"
                + " (`nvml-binding/src/test/c/nvml_double.c`, which takes a lock and copies a few values per call)."
                + " The difference is the cost of the binding.\n\n");
        md.append("| caller | median | alloc/op |\n|---|---:|---:|\n");
        md.append("| procscope binding | ").append(time(nanos("NvmlBenchmark.binding", null))).append(" | ")
                .append(bytes(alloc("NvmlBenchmark.binding", null))).append(" |\n");
        md.append("| C, direct | ").append(time(nanos("NvmlBenchmark.cDirect", null))).append(" | ")
                .append(bytes(alloc("NvmlBenchmark.cDirect", null))).append(" |\n");
        OptionalDouble b = nanos("NvmlBenchmark.binding", null);
        OptionalDouble c = nanos("NvmlBenchmark.cDirect", null);
        md.append("\nbinding ÷ C: ").append(times(ratio(b, c))).append("; the binding's own cost: ")
                .append(b.isPresent() && c.isPresent() ? time(OptionalDouble.of(b.getAsDouble() - c.getAsDouble())) : "—")
                .append(" per sample.\n");
    }
}
