package io.github.procscope.benchmarks;

import io.github.procscope.api.Procscope;
import io.github.procscope.api.files.DeletedFilesScan;
import io.github.procscope.api.files.OpenFiles;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * The system-wide scan for deleted files still held open. Whole-process timings, each run started and
 * waited for: {@code lsof +L1} and the procscope command-line tool ({@code ./procscope --json deleted}, the
 * launcher at the repository root, found through the system property {@value #REPOSITORY}); and the warm
 * in-JVM library scan ({@link OpenFiles#deletedFiles()}). A helper holds eight deleted 1 MiB files open.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.SingleShotTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Warmup(iterations = 3)
@Measurement(iterations = 15)
@Fork(1)
public class DeletedFilesBenchmark {
    /** The system property naming the repository root, where the {@code procscope} launcher lies. */
    static final String REPOSITORY = "procscope.bench.repository";

    private Path dir;
    private Process holder;
    private OpenFiles files;
    private List<String> lsof;
    private List<String> cli;

    /** Starts the holder and checks that lsof and the tool both see its files. */
    @Setup
    public void setUp() throws IOException {
        dir = Files.createTempDirectory("procscope-bench-");
        holder = Fleet.Helper.start(List.of(NativeParts.idle().toString(), "hold", dir.toString(), "8"));
        try (BufferedReader out = new BufferedReader(new InputStreamReader(holder.getInputStream(),
                StandardCharsets.US_ASCII))) {
            String line = out.readLine();
            if (!"ready".equals(line)) {
                throw new IllegalStateException("the holder of deleted files did not start: " + line);
            }
        }
        files = Procscope.system().openFiles();
        if (files.deletedFiles().files().stream().noneMatch(f -> f.pid() == holder.pid())) {
            throw new IllegalStateException("the library scan misses the holder " + holder.pid());
        }
        lsof = List.of("lsof", "+L1");
        Path root = Path.of(System.getProperty(REPOSITORY, ".")).toAbsolutePath();
        Path launcher = root.resolve("procscope");
        if (!Files.isExecutable(launcher)) {
            throw new IllegalStateException(launcher + " is not there: set the system property " + REPOSITORY
                    + " to the repository root");
        }
        cli = List.of(launcher.toString(), "--json", "deleted");
        expectHolder(lsof);
        expectHolder(cli);
    }

    private void expectHolder(List<String> command) throws IOException {
        Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        waitFor(p);
        if (!out.contains(dir.toString())) {
            throw new IllegalStateException(command + " does not list the deleted files under " + dir + ":\n" + out);
        }
    }

    /** Ends the holder by its pid and removes its directory. */
    @TearDown
    public void tearDown() throws IOException {
        if (holder != null) {
            Fleet.Helper.end(holder);
        }
        if (dir != null) {
            Files.deleteIfExists(dir);
        }
    }

    private static int waitFor(Process p) {
        try {
            if (!p.waitFor(60, TimeUnit.SECONDS)) {
                Fleet.Helper.end(p);
                throw new IllegalStateException("process " + p.pid() + " ran over a minute");
            }
            return p.exitValue();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    private static int run(List<String> command) {
        try {
            Process p = new ProcessBuilder(command).redirectOutput(ProcessBuilder.Redirect.DISCARD)
                    .redirectError(ProcessBuilder.Redirect.DISCARD).start();
            return waitFor(p);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** @return lsof's exit status */
    @Benchmark
    public int lsof() {
        return run(lsof);
    }

    /** @return the tool's exit status */
    @Benchmark
    public int procscopeCli() {
        return run(cli);
    }

    /** @return the library's scan, in this warm JVM (an average over many scans, not single shots) */
    @Benchmark
    @BenchmarkMode(Mode.AverageTime)
    @Warmup(iterations = 3, time = 1)
    @Measurement(iterations = 8, time = 1)
    public DeletedFilesScan procscopeLibrary() {
        return files.deletedFiles();
    }
}
