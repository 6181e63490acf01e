package io.github.procscope.cli;

import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * On JDK 25 neither the tool nor a library consumer that adds the README's one flag sees a JVM
 * {@code WARNING} line, and nothing native is extracted to disk (the FFM back end of the native wall).
 * The JDK 25 is the one named by {@code -Dprocscope.jdk25.home=…} or {@code JDK25_HOME}, else a usual install
 * location; without one these tests are skipped, unless {@code PROCSCOPE_REQUIRE_JDK25} (set by CI) or
 * {@code -Dprocscope.require.jdk25=true} makes that a failure.
 */
class NativeAccessWarningsIT {
    /** The flag the README names for consumers. */
    static final String FLAG = "--enable-native-access=ALL-UNNAMED";

    static Path jdk25() {
        List<String> candidates = new ArrayList<>();
        for (String named : new String[] {System.getProperty("procscope.jdk25.home", ""),
                System.getenv().getOrDefault("JDK25_HOME", "")}) {
            if (!named.isBlank()) {
                candidates.add(named);
            }
        }
        candidates.add("/usr/lib/jvm/temurin-25-jdk-amd64");
        candidates.add("/usr/lib/jvm/java-25-openjdk-amd64");
        Optional<Path> found = candidates.stream().map(Path::of)
                .filter(h -> Files.isExecutable(h.resolve("bin/java"))).findFirst();
        if (found.isEmpty() && (Boolean.getBoolean("procscope.require.jdk25")
                || System.getenv("PROCSCOPE_REQUIRE_JDK25") != null)) {
            throw new AssertionError("no JDK 25 found at " + candidates);
        }
        Assumptions.assumeTrue(found.isPresent(), "no JDK 25 here: " + candidates);
        return found.get();
    }

    record Run(int status, String out, List<String> err) {
        List<String> warnings() {
            return err.stream().filter(l -> l.startsWith("WARNING")).toList();
        }
    }

    static Run run(List<String> command, Path dir) throws IOException, InterruptedException {
        Path out = dir.resolve("out.txt");
        Path err = dir.resolve("err.txt");
        ProcessBuilder pb = new ProcessBuilder(command).directory(dir.toFile())
                .redirectOutput(out.toFile()).redirectError(err.toFile());
        pb.environment().remove("JAVA_TOOL_OPTIONS");
        pb.environment().remove("JDK_JAVA_OPTIONS");
        Process p = pb.start();
        if (!p.waitFor(180, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            throw new AssertionError("did not end in 180 s: " + command);
        }
        return new Run(p.exitValue(), Files.readString(out, StandardCharsets.UTF_8),
                Files.readAllLines(err, StandardCharsets.UTF_8));
    }

    static Path nvmlDouble() {
        return NvmlDouble.library();
    }

    private static void assertNothingExtracted(Path dir) throws IOException {
        try (Stream<Path> s = Files.walk(dir)) {
            List<Path> so = s.filter(f -> f.getFileName().toString().contains("jffi")
                    || f.getFileName().toString().endsWith(".so")).toList();
            assertEquals(List.of(), so, "nothing native written to the working or temporary directory");
        }
    }

    @Test
    void theToolPrintsNoWarningOnJdk25(@TempDir Path dir) throws Exception {
        Path java = jdk25().resolve("bin/java");
        Path jar = Readme.repositoryRoot().resolve("procscope-cli/target/procscope.jar");
        assertTrue(Files.isRegularFile(jar), "the tool was packaged: " + jar);
        Path tmp = Files.createDirectories(dir.resolve("tmp"));
        Process sleeper = new ProcessBuilder("sleep", "60").start();
        try {
            List<List<String>> commands = List.of(List.of("ps"), List.of("df"), List.of("tree", "1"),
                    List.of("stop", "--grace", "5s", Long.toString(sleeper.pid())), List.of("gpu"),
                    List.of("run", "--", "sh", "-c", "exit 0"));
            for (List<String> args : commands) {
                List<String> cmd = new ArrayList<>(List.of(java.toString(), "-Djava.io.tmpdir=" + tmp,
                        "-Dprocscope.nvml.library=" + nvmlDouble(), "-jar", jar.toString()));
                cmd.addAll(args);
                Run r = run(cmd, dir);
                assertEquals(0, r.status(), args + ": " + r);
                assertEquals(List.of(), r.warnings(), args + " on JDK 25: " + r.err());
            }
            assertTrue(sleeper.waitFor(30, TimeUnit.SECONDS), "the stop command ended the sleeper");
        } finally {
            sleeper.destroyForcibly();
        }
        assertNothingExtracted(dir);
    }

    @Test
    void aConsumerWithTheReadmesFlagSeesNoWarningOnJdk25(@TempDir Path dir) throws Exception {
        Path java = jdk25().resolve("bin/java");
        Path tmp = Files.createDirectories(dir.resolve("tmp"));
        List<String> base = List.of(java.toString(), "-Djava.io.tmpdir=" + tmp,
                "-Dprocscope.nvml.library=" + nvmlDouble(), "-cp", System.getProperty("java.class.path"));

        List<String> with = new ArrayList<>(base);
        with.add(1, FLAG);
        with.add(NativeAccessConsumer.class.getName());
        Run r = run(with, dir);
        assertEquals(0, r.status(), r.toString());
        assertEquals("ok", r.out().strip(), r.toString());
        assertEquals(List.of(), r.warnings(), "with " + FLAG + ": " + r.err());
        assertNothingExtracted(dir);

        // The check can see a warning: without the flag, JDK 25 warns about the native calls.
        List<String> without = new ArrayList<>(base);
        without.add(NativeAccessConsumer.class.getName());
        Run bare = run(without, dir);
        assertEquals(0, bare.status(), bare.toString());
        assertFalse(bare.warnings().isEmpty(), "JDK 25 warns without the flag: " + bare.err());
        assertTrue(bare.err().stream().anyMatch(l -> l.contains("enable-native-access")), bare.err().toString());
    }

    @Test
    void theReadmeNamesTheFlag() {
        assertTrue(Readme.text().contains(FLAG), "the README names " + FLAG);
    }
}
