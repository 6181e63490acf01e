package io.github.procscope.linux.jobs;

import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * On JDK 22+ a job supervised through the API (spawned, watched, reaped, the subreaper flag set and cleared)
 * goes through the FFM back end of the native wall: its JVM loads no class of jnr or jffi and prints no JVM
 * {@code WARNING}. The JVM is this one if it is a JDK 22+, else the JDK named by {@code JDK25_HOME}; without
 * either the test is skipped.
 */
class JobsLoadNoJnrIT {
    private static Path javaOf22OrNewer() {
        if (Runtime.version().feature() >= 22) {
            return Path.of(ProcessHandle.current().info().command()
                    .orElse(System.getProperty("java.home") + "/bin/java"));
        }
        String home = System.getenv().getOrDefault("JDK25_HOME", "");
        Path java = Path.of(home.isBlank() ? "/nonexistent" : home, "bin", "java");
        Assumptions.assumeTrue(Files.isExecutable(java), "this JVM is older than 22 and JDK25_HOME names no JDK");
        return java;
    }

    @Test
    void aJobRunsWithoutLoadingJnr(@TempDir Path dir) throws Exception {
        Path classLog = dir.resolve("classes.log");
        Path out = dir.resolve("out.txt");
        Path err = dir.resolve("err.txt");
        List<String> cmd = new ArrayList<>(List.of(javaOf22OrNewer().toString(), "--enable-native-access=ALL-UNNAMED",
                "-Xlog:class+load=info:file=" + classLog, "-Djava.io.tmpdir=" + dir,
                "-cp", System.getProperty("java.class.path"), JobProbe.class.getName(),
                "sh", "-c", "sleep 0.2; exit 3"));
        ProcessBuilder pb = new ProcessBuilder(cmd).redirectOutput(out.toFile()).redirectError(err.toFile());
        pb.environment().remove("JAVA_TOOL_OPTIONS");
        pb.environment().remove("JDK_JAVA_OPTIONS");
        Process p = pb.start();
        try {
            assertTrue(p.waitFor(120, TimeUnit.SECONDS), "the probe ended");
        } finally {
            p.destroyForcibly();
        }
        List<String> errLines = Files.readAllLines(err, StandardCharsets.UTF_8);
        assertEquals(0, p.exitValue(), "probe: " + Files.readString(out) + errLines);
        assertEquals("status 3", Files.readString(out, StandardCharsets.UTF_8).strip());
        assertEquals(List.of(), errLines.stream().filter(l -> l.startsWith("WARNING")).toList(), "no JVM warning");

        List<String> loaded = Files.readAllLines(classLog, StandardCharsets.UTF_8);
        assertTrue(loaded.stream().anyMatch(l -> l.contains(" io.github.procscope.linux.sys.FfmWall ")),
                "the log lists the classes loaded, the FFM wall among them");
        assertTrue(loaded.stream().anyMatch(l -> l.contains(" io.github.procscope.linux.jobs.LinuxJobSupervisor ")),
                "the supervisor ran in this JVM");
        List<String> jnr = loaded.stream()
                .filter(l -> l.contains(" jnr.") || l.contains(" com.kenai.jffi.")).toList();
        assertEquals(List.of(), jnr, "no class of jnr or jffi loaded");
        try (var files = Files.list(dir)) {
            assertFalse(files.anyMatch(f -> f.getFileName().toString().contains("jffi")), "no jffi stub extracted");
        }
    }
}
