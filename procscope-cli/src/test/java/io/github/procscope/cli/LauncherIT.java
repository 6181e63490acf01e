package io.github.procscope.cli;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.FileTime;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The launcher ({@code ./procscope}) keeps a class-data archive next to the jar: made on the first run,
 * used by the next, made again when the jar changes, and silently done without where it cannot be
 * written or is damaged. Run on a copy of the launcher and the packaged jar, with this JVM's JDK and, if
 * there is one, a JDK 25 (AOT cache).
 */
class LauncherIT {
    record Run(int status, String out, String err) {
    }

    private static List<Path> jdks() {
        List<Path> homes = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"))));
        for (String h : List.of(System.getProperty("procscope.jdk25.home", ""),
                System.getenv().getOrDefault("JDK25_HOME", ""), "/usr/lib/jvm/temurin-25-jdk-amd64",
                "/usr/lib/jvm/java-25-openjdk-amd64")) {
            if (!h.isBlank() && Files.isExecutable(Path.of(h, "bin/java"))) {
                homes.add(Path.of(h));
                break;
            }
        }
        return homes;
    }

    /** A copy of the launcher and the jar: {@code dir/procscope}, {@code dir/procscope-cli/target/procscope.jar}. */
    private static Path install(Path dir) throws IOException {
        Path root = Readme.repositoryRoot();
        Path target = Files.createDirectories(dir.resolve("procscope-cli/target"));
        Files.copy(root.resolve("procscope"), dir.resolve("procscope"), StandardCopyOption.COPY_ATTRIBUTES);
        Path jar = target.resolve("procscope.jar");
        Files.copy(root.resolve("procscope-cli/target/procscope.jar"), jar);
        Files.setLastModifiedTime(jar, FileTime.fromMillis(System.currentTimeMillis() - 60_000));
        return jar;
    }

    private static Run run(Path dir, Path jdk, List<String> prefix, Map<String, String> env) throws Exception {
        return run(dir, jdk, prefix, env, "ps");
    }

    private static Run run(Path dir, Path jdk, List<String> prefix, Map<String, String> env, String... args)
            throws Exception {
        List<String> cmd = new ArrayList<>(prefix);
        cmd.addAll(List.of("sh", dir.resolve("procscope").toString()));
        cmd.addAll(List.of(args));
        ProcessBuilder pb = new ProcessBuilder(cmd).directory(dir.toFile());
        pb.environment().put("JAVA_HOME", jdk.toString());
        pb.environment().remove("JAVA_TOOL_OPTIONS");
        pb.environment().remove("PROCSCOPE_NO_ARCHIVE");
        pb.environment().putAll(env);
        Path out = Files.createTempFile(dir, "out", ".txt");
        Path err = Files.createTempFile(dir, "err", ".txt");
        Process p = pb.redirectOutput(out.toFile()).redirectError(err.toFile()).start();
        if (!p.waitFor(300, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            throw new AssertionError("the launcher did not end in 300 s");
        }
        Run r = new Run(p.exitValue(), Files.readString(out, StandardCharsets.UTF_8),
                Files.readString(err, StandardCharsets.UTF_8));
        Files.delete(out);
        Files.delete(err);
        return r;
    }

    private static List<Path> archives(Path jar) throws IOException {
        try (Stream<Path> s = Files.list(jar.getParent())) {
            return s.filter(f -> f.getFileName().toString().matches("procscope\\.jar\\.jdk[0-9]+-[0-9]+\\.(jsa|aot)"))
                    .sorted().toList();
        }
    }

    /** @return the feature release of the JDK at {@code home}, from its {@code release} file */
    private static int feature(Path home) throws IOException {
        for (String line : Files.readAllLines(home.resolve("release"))) {
            if (line.startsWith("JAVA_VERSION=\"")) {
                return Integer.parseInt(line.substring("JAVA_VERSION=\"".length()).split("[^0-9]", 2)[0]);
            }
        }
        throw new AssertionError("no JAVA_VERSION in " + home.resolve("release"));
    }

    @Test
    void longRunningCommandsGetACollectorThatKeepsTheirHeapSmallOnEachJdk(@TempDir Path dir) throws Exception {
        install(dir);
        Map<String, String> debug = Map.of("PROCSCOPE_LAUNCHER_DEBUG", "1", "PROCSCOPE_NO_ARCHIVE", "1");
        for (Path jdk : jdks()) {
            int feature = feature(jdk);
            Run serve = run(dir, jdk, List.of(), debug, "serve", "--help");
            assertEquals(0, serve.status(), serve.toString());
            String cmd = serve.err();
            if (feature >= 24) {
                // JDK 24+'s serial GC grows its old generation to the heap's maximum before it collects it.
                assertTrue(cmd.contains(" -XX:+UseG1GC ") && !cmd.contains("UseSerialGC"), jdk + ": " + cmd);
            } else {
                assertTrue(cmd.contains(" -XX:+UseSerialGC -Xmn4m ") && !cmd.contains("UseG1GC"), jdk + ": " + cmd);
            }
            assertTrue(cmd.contains(" -Xmx96m "), cmd);

            Map<String, String> own = new java.util.HashMap<>(debug);
            own.put("PROCSCOPE_SERVE_JAVA_OPTS", "-Xmx64m");
            Run replaced = run(dir, jdk, List.of(), own, "serve", "--help");
            assertEquals(0, replaced.status(), replaced.toString());
            assertTrue(replaced.err().contains(" -Xmx64m ") && !replaced.err().contains("-Xmx96m")
                    && !replaced.err().contains("UseSerialGC") && !replaced.err().contains("UseG1GC"),
                    "the options replace the collector too: " + replaced.err());

            for (List<String> command : List.of(List.of("run", "--help"), List.of("watch", "--help"),
                    List.of("events", "--help"), List.of("logs", "-f", "--help"), List.of("logs", "-hf"))) {
                Run r = run(dir, jdk, List.of(), debug, command.toArray(String[]::new));
                assertEquals(0, r.status(), r.toString());
                assertTrue(r.err().contains(" -Xms8m ") && r.err().contains(feature >= 24 ? " -XX:+UseG1GC "
                        : " -XX:+UseSerialGC -Xmn4m ") && !r.err().contains("-Xmx"), command + ": " + r.err());
            }
            Run once = run(dir, jdk, List.of(), debug, "logs", "--help");
            assertTrue(once.err().contains(" -XX:+UseSerialGC ") && !once.err().contains("-Xms8m"),
                    "logs without -f prints once, as a one-shot command: " + once.err());

            Run ps = run(dir, jdk, List.of(), debug);
            assertTrue(ps.err().contains(" -XX:+UseSerialGC ") && !ps.err().contains("-Xmx"),
                    "a one-shot command keeps the serial GC and the default heap: " + ps.err());
        }
    }

    @Test
    void theArchiveIsMadeUsedAndRemadeWhenTheJarChanges(@TempDir Path dir) throws Exception {
        Path jar = install(dir);
        Map<String, String> debug = Map.of("PROCSCOPE_LAUNCHER_DEBUG", "1");
        for (Path jdk : jdks()) {
            Run first = run(dir, jdk, List.of(), Map.of());
            assertEquals(0, first.status(), first.toString());
            assertTrue(first.out().contains("PID"), first.out());
            assertEquals("", first.err(), "making the archive is quiet");
            List<Path> made = archives(jar);
            assertEquals(1, made.size(), jdk + ": one archive next to the jar: " + made);
            Path archive = made.get(0);
            String option = archive.toString().endsWith(".aot") ? "-XX:AOTCache=" : "-XX:SharedArchiveFile=";
            FileTime madeAt = Files.getLastModifiedTime(archive);

            Run second = run(dir, jdk, List.of(), debug);
            assertEquals(0, second.status(), second.toString());
            assertTrue(second.err().contains(option + archive), "the next run uses it: " + second.err());
            assertEquals(madeAt, Files.getLastModifiedTime(archive), "and does not make it again");

            // The jar changes after the archive was made: the jar 2 s old, the archive 30 s old.
            long now = System.currentTimeMillis();
            Files.setLastModifiedTime(jar, FileTime.fromMillis(now - 2_000));
            Files.setLastModifiedTime(archive, FileTime.fromMillis(now - 30_000));
            Run third = run(dir, jdk, List.of(), debug);
            assertEquals(0, third.status(), third.toString());
            assertTrue(Files.getLastModifiedTime(archive).compareTo(Files.getLastModifiedTime(jar)) > 0,
                    "a jar newer than the archive gets a new archive");
            assertTrue(third.err().contains(option + archive), third.err());

            // A damaged archive is ignored by the JVM without a word.
            Files.writeString(archive, "not an archive");
            Run damaged = run(dir, jdk, List.of(), Map.of());
            assertEquals(0, damaged.status(), damaged.toString());
            assertTrue(damaged.out().contains("PID"), damaged.out());
            assertEquals("", damaged.err(), "a damaged archive: no message");
            Files.delete(archive);
        }
    }

    /**
     * The staleness check: a main source or a POM newer than the jar means a build (here refused, with Maven
     * off the PATH, which shows the launcher decided to build); a newer test source, or a file elsewhere in the
     * checkout, does not.
     */
    @Test
    void onlyANewerMainSourceOrPomRebuilds(@TempDir Path dir) throws Exception {
        install(dir);
        Path jdk = Path.of(System.getProperty("java.home"));
        // A PATH with the tools the launcher uses, and no Maven.
        Path bin = Files.createDirectories(dir.resolve("bin"));
        for (String tool : List.of("sh", "dirname", "find", "mkdir", "sed", "grep", "rm", "readlink", "cksum", "cut",
                "mv", "head", "cat")) {
            for (String d : List.of("/usr/bin/", "/bin/")) {
                if (Files.isExecutable(Path.of(d + tool))) {
                    Files.createSymbolicLink(bin.resolve(tool), Path.of(d + tool));
                    break;
                }
            }
        }
        Map<String, String> noMaven = Map.of("PATH", bin.toString(), "PROCSCOPE_NO_ARCHIVE", "1");
        Files.createDirectories(dir.resolve(".git/objects"));
        Files.writeString(dir.resolve(".git/objects/newer"), "x");
        Path test = Files.createDirectories(dir.resolve("procfs-api/src/test/java")).resolve("NewerTest.java");
        Files.writeString(test, "class NewerTest {}");
        Run fresh = run(dir, jdk, List.of(), noMaven);
        assertEquals(0, fresh.status(), "a newer test source or git object is not a reason to build: " + fresh);
        assertTrue(fresh.out().contains("PID"), fresh.out());

        Path main = Files.createDirectories(dir.resolve("procfs-api/src/main/java")).resolve("Newer.java");
        Files.writeString(main, "class Newer {}");
        Run stale = run(dir, jdk, List.of(), noMaven);
        assertEquals(2, stale.status(), stale.toString());
        assertTrue(stale.err().startsWith("procscope: building the tool needs Maven"), stale.err());
        Files.delete(main);

        Files.writeString(dir.resolve("pom.xml"), "<project/>");
        Run pom = run(dir, jdk, List.of(), noMaven);
        assertEquals(2, pom.status(), "a newer POM: " + pom);
    }

    @Test
    void withoutAWritableArchiveLocationTheToolRunsAsBefore(@TempDir Path dir) throws Exception {
        Path jar = install(dir);
        List<String> prefix;
        boolean root = "root".equals(System.getProperty("user.name"));
        if (root) {
            // root writes anywhere: run as nobody, who may read the copy but not write next to the jar.
            for (Path p = dir; p != null; p = p.getParent()) {
                if (p.equals(Path.of(System.getProperty("java.io.tmpdir"))) || p.getParent() == null) {
                    break;
                }
                Files.setPosixFilePermissions(p, PosixFilePermissions.fromString("rwxr-xr-x"));
            }
            try (Stream<Path> s = Files.walk(dir)) {
                for (Path p : s.toList()) {
                    Files.setPosixFilePermissions(p, PosixFilePermissions.fromString(
                            Files.isDirectory(p) ? "rwxr-xr-x" : "rw-r--r--"));
                }
            }
            prefix = List.of("setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", "--");
        } else {
            Files.setPosixFilePermissions(jar.getParent(), PosixFilePermissions.fromString("r-xr-xr-x"));
            prefix = List.of();
        }
        Path home = Files.createDirectories(dir.resolve("home"));
        for (Path jdk : jdks()) {
            Run r = runReadOnly(dir, jdk, prefix, home);
            assertEquals(0, r.status(), r.toString());
            assertTrue(r.out().contains("PID"), r.out());
            assertEquals("", r.err(), "no archive, no message");
            assertEquals(List.of(), archives(jar), "nothing written next to the jar");
        }
        if (!root) {
            Files.setPosixFilePermissions(jar.getParent(), PosixFilePermissions.fromString("rwxr-xr-x"));
        }
    }

    private static Run runReadOnly(Path dir, Path jdk, List<String> prefix, Path home) throws Exception {
        // Output goes to files in a directory the other user may write.
        Files.setPosixFilePermissions(home, PosixFilePermissions.fromString("rwxrwxrwx"));
        List<String> cmd = new ArrayList<>(prefix);
        cmd.addAll(List.of("sh", dir.resolve("procscope").toString(), "ps"));
        ProcessBuilder pb = new ProcessBuilder(cmd).directory(home.toFile());
        pb.environment().put("JAVA_HOME", jdk.toString());
        pb.environment().put("HOME", home.toString());
        pb.environment().remove("JAVA_TOOL_OPTIONS");
        Path out = home.resolve("out.txt");
        Path err = home.resolve("err.txt");
        Process p = pb.redirectOutput(out.toFile()).redirectError(err.toFile()).start();
        assertTrue(p.waitFor(300, TimeUnit.SECONDS), "the launcher ended");
        return new Run(p.exitValue(), Files.readString(out, StandardCharsets.UTF_8),
                Files.readString(err, StandardCharsets.UTF_8));
    }
}
