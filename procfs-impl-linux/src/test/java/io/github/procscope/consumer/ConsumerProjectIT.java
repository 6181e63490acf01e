package io.github.procscope.consumer;

import io.github.procscope.api.Procscope;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A consumer project, built and run here as child processes of {@code javac} and {@code java}: it compiles
 * against {@code procfs-api} alone, finds {@code procfs-impl-linux} at run time, and uses every accessor of
 * the front door. On the class path and on the module path; with JDK 17 (the build's) and JDK 25 when
 * installed.
 */
class ConsumerProjectIT {
    private static final Path JDK25 = Path.of("/usr/lib/jvm/temurin-25-jdk-amd64");

    /** What the consumer prints, one line per accessor; the test looks for each. */
    private static final List<String> MARKS = List.of("roots /proc /sys", "processes ", "memory rss ",
            "openFiles ", "resources available ", "signals sent TERM to ", "signals child exited 143",
            "kernelLog ", "events from ", "doctor ", "openGpus BINDING_ABSENT", "guard installed [WINCH]", "at fixture ok", "done");

    private static final String MAIN = """
            package consumer;

            import io.github.procscope.api.core.ProcessKey;
            import io.github.procscope.api.Procscope;
            import io.github.procscope.api.core.ProcscopeException;
            import io.github.procscope.api.signals.Signal;
            import io.github.procscope.api.diagnose.Diagnosis;
            import io.github.procscope.api.diagnose.DoctorOptions;
            import io.github.procscope.api.gpu.GpuUnavailableException;
            import io.github.procscope.api.gpu.Gpus;
            import io.github.procscope.api.signals.PreemptionGuard;
            import io.github.procscope.api.signals.PreemptionGuardOptions;
            import java.nio.file.Path;
            import java.time.Duration;
            import java.util.concurrent.TimeUnit;

            public final class Main {
                public static void main(String[] args) throws Exception {
                    Procscope host = Procscope.system();
                    long self = ProcessHandle.current().pid();
                    System.out.println("roots " + host.procfsRoot() + " " + host.sysfsRoot());
                    System.out.println("processes " + host.processes().snapshot().processes().size());
                    System.out.println("memory rss " + host.memory().totals(self).rssBytes());
                    System.out.println("openFiles " + host.openFiles().fds(self).size());
                    System.out.println("resources available " + host.resources().memory().availableBytes());
                    Process child = new ProcessBuilder("sleep", "60").start();
                    ProcessKey key = host.processes().key(child.pid());
                    System.out.println("signals sent TERM to " + key.pid() + ": "
                            + host.signals().send(key, Signal.TERM).outcome());
                    if (!child.waitFor(20, TimeUnit.SECONDS)) {
                        child.destroyForcibly();
                        throw new AssertionError("the child outlived TERM");
                    }
                    System.out.println("signals child exited " + child.exitValue());
                    try {
                        System.out.println("kernelLog " + host.kernelLog().oomKills().size() + " OOM kills");
                    } catch (ProcscopeException e) {
                        System.out.println("kernelLog unreadable here: " + e.getMessage());
                    }
                    try (var sub = host.events().subscribe(e -> { }, Duration.ofMillis(200))) {
                        System.out.println("events from " + sub.source());
                    }
                    Diagnosis d = host.doctor().examine(DoctorOptions.defaults().withSampleWindow(Duration.ZERO));
                    System.out.println("doctor " + d.findings().size() + " findings");
                    try (Gpus gpus = host.openGpus()) {
                        System.out.println("openGpus " + gpus.devices().size());
                    } catch (GpuUnavailableException e) {
                        System.out.println("openGpus " + e.reason());
                    }
                    try (PreemptionGuard guard = host.preemptionGuard(PreemptionGuardOptions.defaults()
                            .withSignals(Signal.WINCH))) {
                        System.out.println("guard installed " + guard.installed());
                    }
                    Procscope at = Procscope.at(Path.of(args[0]), Path.of(args[1]));
                    System.out.println("at fixture " + (at.processes().process(90).comm().equals("python") ? "ok" : "wrong"));
                    System.out.println("done");
                }
            }
            """;

    @TempDir
    Path work;

    @Test
    void classPathJdk17() throws Exception {
        classPath(Path.of(System.getProperty("java.home")));
    }

    @Test
    void modulePathJdk17() throws Exception {
        modulePath(Path.of(System.getProperty("java.home")));
    }

    @Test
    void classPathJdk25() throws Exception {
        if (Files.isExecutable(JDK25.resolve("bin/java"))) {
            classPath(JDK25);
        }
    }

    @Test
    void modulePathJdk25() throws Exception {
        if (Files.isExecutable(JDK25.resolve("bin/java"))) {
            modulePath(JDK25);
        }
    }

    private void classPath(Path jdk) throws Exception {
        Path src = write("cp/src/consumer/Main.java", MAIN);
        Path classes = work.resolve("cp/classes");
        run(jdk, "javac", "--release", "17", "-Xlint:all", "-Werror", "-cp", api().toString(), "-d",
                classes.toString(), src.toString());
        String cp = classes + File.pathSeparator + join(runtime());
        check(run(jdk, "java", nativeAccess(jdk, "ALL-UNNAMED"), "-cp", cp, "consumer.Main",
                fixture("proc-clean").toString(), work.toString()));
    }

    private void modulePath(Path jdk) throws Exception {
        // requires io.github.procscope.linux only: the API comes with it (requires transitive), the native
        // libraries' jars and jdk.unsupported through it.
        write("mp/src/module-info.java", "module consumer { requires io.github.procscope.linux; }\n");
        Path src = write("mp/src/consumer/Main.java", MAIN);
        Path classes = work.resolve("mp/classes");
        run(jdk, "javac", "--release", "17", "-p", join(runtime()), "-d", classes.toString(),
                work.resolve("mp/src/module-info.java").toString(), src.toString());
        String mp = classes + File.pathSeparator + join(runtime());
        check(run(jdk, "java", nativeAccess(jdk, "io.github.procscope.linux"), "-p", mp, "-m", "consumer/consumer.Main",
                fixture("proc-clean").toString(), work.toString()));

        // And a module that requires the API alone: the platform joins the graph through service binding.
        write("mp2/src/module-info.java", "module consumer { requires io.github.procscope.api; }\n");
        Path src2 = write("mp2/src/consumer/Main.java", MAIN);
        Path classes2 = work.resolve("mp2/classes");
        run(jdk, "javac", "--release", "17", "-p", api().toString(), "-d", classes2.toString(),
                work.resolve("mp2/src/module-info.java").toString(), src2.toString());
        check(run(jdk, "java", nativeAccess(jdk, "io.github.procscope.linux"), "-p",
                classes2 + File.pathSeparator + join(runtime()), "-m", "consumer/consumer.Main",
                fixture("proc-clean").toString(), work.toString()));
    }

    /**
     * @return the one flag the README names for JDK 22 and later (the FFM back end of the native wall
     *         makes restricted calls), or a harmless one for JDK 17
     */
    private static String nativeAccess(Path jdk, String module) {
        return jdk.equals(JDK25) ? "--enable-native-access=" + module : "-Dprocscope.consumer=1";
    }

    private static void check(String out) {
        assertFalse(out.contains("restricted method"), out);
        for (String mark : MARKS) {
            assertTrue(out.contains(mark), "the consumer printed " + mark + ":\n" + out);
        }
        assertFalse(out.contains("Exception in thread"), out);
    }

    /** @return procfs-api, as built by this reactor */
    private static Path api() throws Exception {
        return location(Procscope.class);
    }

    /** @return what a consumer's run time needs: the API, the platform and its native-call libraries */
    private static List<Path> runtime() throws Exception {
        List<Path> out = new ArrayList<>();
        out.add(api());
        out.add(location(Class.forName("io.github.procscope.linux.platform.LinuxPlatform")));
        for (String e : System.getProperty("java.class.path").split(File.pathSeparator)) {
            if (e.contains("/com/github/jnr/") || e.contains("/org/ow2/asm/")) {
                out.add(Path.of(e));
            }
        }
        assertTrue(out.size() > 4, "found jnr and asm on the test class path: " + out);
        return out;
    }

    private static Path location(Class<?> c) throws Exception {
        return Path.of(c.getProtectionDomain().getCodeSource().getLocation().toURI());
    }

    private Path fixture(String name) throws Exception {
        Path p = Path.of(ConsumerProjectIT.class.getResource("/fixtures/" + name).toURI());
        assertTrue(Files.isDirectory(p), p.toString());
        return p;
    }

    private Path write(String relative, String text) throws IOException {
        Path p = work.resolve(relative);
        Files.createDirectories(p.getParent());
        Files.writeString(p, text);
        return p;
    }

    private static String join(List<Path> paths) {
        return paths.stream().map(Path::toString).collect(Collectors.joining(File.pathSeparator));
    }

    private String run(Path jdk, String tool, String... args) throws Exception {
        List<String> cmd = new ArrayList<>();
        cmd.add(jdk.resolve("bin").resolve(tool).toString());
        cmd.addAll(List.of(args));
        Process p = new ProcessBuilder(cmd).directory(work.toFile()).redirectErrorStream(true).start();
        p.getOutputStream().close();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (!p.waitFor(120, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            throw new AssertionError(String.join(" ", cmd) + " did not finish:\n" + out);
        }
        assertEquals(0, p.exitValue(), String.join(" ", cmd) + "\n" + out);
        return out;
    }
}
