package io.github.procscope.cli;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The README's library path, followed as written in a clean directory: its install command in a copy of this
 * source tree, its {@code pom.xml} and program in a new project, its build command, and its {@code java} commands
 * on the class path and (with its {@code module-info.java}) on the module path, on JDK 17 and on JDK 25 where
 * installed. Each run prints what the README says it prints, and no JVM warning.
 *
 * <p>Nothing is installed into the user's Maven repository: every {@code mvn} here gets
 * {@code -Dmaven.repo.local} in the test's directory, and a settings file whose first repository is the user's
 * local repository, read as a {@code file://} remote, so the build finds the project's dependencies and plugins
 * without a download when they are already there (Maven Central stays behind it for what is not).
 */
class ReadmeLibraryPathIT {
    private static final Path JDK25 = Path.of(System.getenv().getOrDefault("JDK25_HOME",
            "/usr/lib/jvm/temurin-25-jdk-amd64"));
    private static final long INSTALL_TIMEOUT_SECONDS = 1800;
    private static final long STEP_TIMEOUT_SECONDS = 600;

    @Test
    void theLibraryPathWorksAsWritten(@TempDir Path tmp) throws Exception {
        String readme = Readme.text();
        String library = Readme.section(readme, "## Use it as a library");
        String modular = Readme.section(readme, "### On the module path");
        List<String> libraryCommands = Readme.blocks(library, "sh");
        assertEquals(2, libraryCommands.size(), "install, then build and run: " + libraryCommands);
        String install = libraryCommands.get(0).strip();
        assertEquals("mvn -DskipTests install", install);
        List<String> classPathSteps = libraryCommands.get(1).strip().lines().toList();
        List<String> modulePathSteps = Readme.blocks(modular, "sh").get(0).strip().lines().toList();
        String pom = Readme.blocks(library, "xml").get(0);
        String program = Readme.blocks(library, "java").stream().filter(b -> b.startsWith("package "))
                .findFirst().orElseThrow();
        String moduleInfo = Readme.blocks(modular, "java").get(0);
        List<String> sample = Readme.blocks(library, "text").get(0).strip().lines().toList();

        Path repo = tmp.resolve("repository");
        Path settings = tmp.resolve("settings.xml");
        Files.writeString(settings, settings(userRepository()));
        String mavenOptions = " -B -s " + settings + " -Dmaven.repo.local=" + repo;

        Path clone = tmp.resolve("clone");
        copySourceTree(Readme.repositoryRoot(), clone);
        sh(clone, Map.of(), install + mavenOptions, INSTALL_TIMEOUT_SECONDS);
        assertTrue(Files.isDirectory(repo.resolve("io/github/procscope/procscope-bom/0.1.0-SNAPSHOT")),
                "the install put the BOM in the local repository");

        List<Path> jdks = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"))));
        if (Files.isExecutable(JDK25.resolve("bin/java")) && !jdks.get(0).equals(JDK25)) {
            jdks.add(JDK25);
        }
        for (Path jdk : jdks) {
            Map<String, String> env = Map.of("JAVA_HOME", jdk.toString());
            Path project = tmp.resolve("demo-" + jdk.getFileName());
            Files.createDirectories(project.resolve("src/main/java/demo"));
            Files.writeString(project.resolve("pom.xml"), pom);
            Files.writeString(project.resolve("src/main/java/demo/Hello.java"), program);

            sh(project, env, withMavenOptions(classPathSteps.get(0), mavenOptions), STEP_TIMEOUT_SECONDS);
            checkPrinted(sh(project, env, withJava(classPathSteps.get(1), jdk), STEP_TIMEOUT_SECONDS), sample,
                    "class path, " + jdk);

            Files.writeString(project.resolve("src/main/java/module-info.java"), moduleInfo);
            sh(project, env, withMavenOptions(modulePathSteps.get(0), mavenOptions), STEP_TIMEOUT_SECONDS);
            assertTrue(Files.isRegularFile(project.resolve("target/classes/module-info.class")), "a modular build");
            checkPrinted(sh(project, env, withJava(modulePathSteps.get(1), jdk), STEP_TIMEOUT_SECONDS), sample,
                    "module path, " + jdk);
        }
    }

    /** The program's lines have the shape of the README's sample: the same words, other numbers and names. */
    private static void checkPrinted(String printed, List<String> sample, String how) {
        assertFalse(printed.contains("WARNING"), how + ": no JVM warning with the README's flag:\n" + printed);
        List<String> lines = printed.strip().lines().toList();
        assertEquals(sample.size(), lines.size(), how + ": as many lines as the README shows:\n" + printed);
        Pattern first = Pattern.compile(Pattern.quote(sample.get(0)).replaceAll("\\d+", "\\\\E\\\\d+\\\\Q"));
        assertTrue(first.matcher(lines.get(0)).matches(), how + ": " + lines.get(0) + " is like " + sample.get(0));
        Pattern process = Pattern.compile(" *\\d+ .{15} [\\d,]+ bytes resident");
        for (int i = 1; i < sample.size(); i++) {
            assertTrue(process.matcher(sample.get(i)).matches(), "the README's sample line " + sample.get(i));
            assertTrue(process.matcher(lines.get(i)).matches(), how + ": " + lines.get(i));
        }
    }

    private static String withMavenOptions(String command, String options) {
        assertTrue(command.startsWith("mvn "), command);
        return command + options;
    }

    private static String withJava(String command, Path jdk) {
        assertTrue(command.startsWith("java "), command);
        return jdk.resolve("bin/java") + command.substring("java".length());
    }

    private static Path userRepository() {
        String set = System.getProperty("maven.repo.local");
        return set != null ? Path.of(set) : Path.of(System.getProperty("user.home"), ".m2", "repository");
    }

    private static String settings(Path seed) {
        String url = seed.toUri().toString();
        return """
                <settings>
                  <profiles>
                    <profile>
                      <id>seed</id>
                      <repositories>
                        <repository><id>seed</id><url>%1$s</url></repository>
                      </repositories>
                      <pluginRepositories>
                        <pluginRepository><id>seed</id><url>%1$s</url></pluginRepository>
                      </pluginRepositories>
                    </profile>
                  </profiles>
                  <activeProfiles><activeProfile>seed</activeProfile></activeProfiles>
                </settings>
                """.formatted(url);
    }

    /** Copies the sources as a fresh clone has them: no build outputs, no version-control directory. */
    private static void copySourceTree(Path from, Path to) throws IOException {
        Files.walkFileTree(from, new SimpleFileVisitor<>() {
            @Override
            public FileVisitResult preVisitDirectory(Path dir, BasicFileAttributes attrs) throws IOException {
                String name = dir.getFileName() == null ? "" : dir.getFileName().toString();
                if (!dir.equals(from) && (name.equals("target") || name.equals(".git") || name.equals(".idea"))) {
                    return FileVisitResult.SKIP_SUBTREE;
                }
                Files.createDirectories(to.resolve(from.relativize(dir).toString()));
                return FileVisitResult.CONTINUE;
            }

            @Override
            public FileVisitResult visitFile(Path file, BasicFileAttributes attrs) throws IOException {
                if (attrs.isRegularFile() && !file.getFileName().toString().equals(".git")) {
                    Files.copy(file, to.resolve(from.relativize(file).toString()), StandardCopyOption.COPY_ATTRIBUTES);
                }
                return FileVisitResult.CONTINUE;
            }
        });
    }

    private static String sh(Path dir, Map<String, String> env, String command, long timeoutSeconds)
            throws Exception {
        ProcessBuilder pb = new ProcessBuilder("sh", "-c", command).directory(dir.toFile()).redirectErrorStream(true);
        pb.environment().putAll(env);
        Path log = Files.createTempFile(dir.getParent(), "step", ".log");
        pb.redirectOutput(log.toFile());
        Process p = pb.start();
        p.getOutputStream().close();
        if (!p.waitFor(timeoutSeconds, TimeUnit.SECONDS)) {
            p.descendants().forEach(ProcessHandle::destroyForcibly);
            p.destroyForcibly();
            p.waitFor(60, TimeUnit.SECONDS);
            throw new AssertionError(command + " did not finish in " + timeoutSeconds + " s:\n" + Files.readString(log));
        }
        String out = Files.readString(log, StandardCharsets.UTF_8);
        assertEquals(0, p.exitValue(), command + "\n" + out);
        return out;
    }
}
