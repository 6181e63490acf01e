package io.github.procscope.nvml;

import io.github.procscope.api.GpusProvider;
import io.github.procscope.api.Procscope;
import io.github.procscope.testing.Spawned;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import javax.tools.JavaCompiler;
import javax.tools.ToolProvider;
import java.io.ByteArrayOutputStream;
import java.io.File;
import java.io.IOException;
import java.lang.module.ModuleDescriptor;
import java.lang.module.ModuleFinder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The packaged jar as a named module: its descriptor, and a consumer module on the module path that opens
 * the GPUs of the NVML test double through the service loader and reads every structure the binding passes
 * (PCI info, memory, process lists, GPM), so that JNA's reflective access is proven.
 */
class ModulePathIT {
    private static final String MODULE = "io.github.procscope.nvml";

    /** @return the jar a class was loaded from (failsafe runs this test against the packaged jars) */
    private static Path jarOf(Class<?> type) {
        try {
            Path p = Path.of(type.getProtectionDomain().getCodeSource().getLocation().toURI());
            assertTrue(p.getFileName().toString().endsWith(".jar"), type + " comes from " + p + ", not a jar");
            return p;
        } catch (java.net.URISyntaxException e) {
            throw new AssertionError(e);
        }
    }

    /**
     * @return the jars of the binding, the API and JNA, and the Linux platform with its native-call libraries
     *         (the GPUs are opened through the front door, whose platform joins by service binding)
     */
    private static List<Path> modulePath() {
        List<Path> path = new java.util.ArrayList<>(List.of(bindingJar(), jarOf(GpusProvider.class),
                jarOf(com.sun.jna.Native.class), jarOf(io.github.procscope.linux.proc.LinuxProcfs.class)));
        for (String e : System.getProperty("java.class.path").split(File.pathSeparator)) {
            if (e.contains("/com/github/jnr/") || e.contains("/org/ow2/asm/")) {
                path.add(Path.of(e));
            }
        }
        return path;
    }

    private static Path bindingJar() {
        return jarOf(NvmlGpus.class);
    }

    @Test
    void theJarIsANamedModuleThatExportsOnlyItsPublicPackage() {
        ModuleDescriptor d = ModuleFinder.of(bindingJar()).findAll().iterator().next().descriptor();
        assertEquals(MODULE, d.name());
        assertFalse(d.isAutomatic());
        assertEquals(Set.of(MODULE), d.exports().stream().map(ModuleDescriptor.Exports::source).collect(Collectors.toSet()));
        assertTrue(d.exports().stream().noneMatch(ModuleDescriptor.Exports::isQualified));
        assertEquals(1, d.opens().size());
        ModuleDescriptor.Opens opens = d.opens().iterator().next();
        assertEquals(Set.of("com.sun.jna"), opens.targets(), "opened to JNA alone");
        assertEquals(Set.of("io.github.procscope.api", "com.sun.jna", "java.base"),
                d.requires().stream().map(ModuleDescriptor.Requires::name).collect(Collectors.toSet()));
        ModuleDescriptor.Provides provides = d.provides().iterator().next();
        assertEquals(GpusProvider.class.getName(), provides.service());
        assertEquals(List.of(NvmlGpusProvider.class.getName()), provides.providers());
    }

    private static final String CONSUMER_MODULE = """
            module consumer {
                requires io.github.procscope.nvml;
                requires com.sun.jna;
                opens consumer to com.sun.jna;
            }
            """;

    private static final String CONSUMER_MAIN = """
            package consumer;

            import com.sun.jna.Library;
            import com.sun.jna.Native;
            import io.github.procscope.api.Procscope;
            import io.github.procscope.api.gpu.GpuDevice;
            import io.github.procscope.api.gpu.Gpus;
            import java.time.Duration;

            public final class Main {
                public interface Control extends Library {
                    int ndReset();
                    int ndAddProcess(int id, int kind, int pid, long mem, int gi, int ci);
                }

                public static void main(String[] args) {
                    Control c = Native.load(System.getProperty("procscope.nvml.library"), Control.class);
                    c.ndReset();
                    c.ndAddProcess(0, 0, 4242, 1L << 30, 0xFFFFFFFF, 0xFFFFFFFF);
                    try (Gpus gpus = Procscope.system().openGpus()) {
                        GpuDevice d = gpus.device(0);
                        System.out.println(gpus.getClass().getModule().getName() + " " + gpus.driverVersion()
                                + " " + gpus.devices().size() + " pci=" + d.pciBusId().orElse("-")
                                + " total=" + d.sample().memory().orElseThrow().totalBytes()
                                + " pids=" + d.processes().processes().stream().map(p -> p.pid()).toList()
                                + " gpm=" + d.gpmMetrics(Duration.ofMillis(100)).isPresent());
                    }
                }
            }
            """;

    @Test
    void aConsumerModuleOpensTheGpusThroughTheServiceLoader(@TempDir Path dir) throws IOException {
        Path src = Files.createDirectories(dir.resolve("src/consumer"));
        Files.writeString(dir.resolve("src/module-info.java"), CONSUMER_MODULE);
        Files.writeString(src.resolve("Main.java"), CONSUMER_MAIN);
        Path out = dir.resolve("out");
        String modulePath = modulePath().stream().map(Path::toString).collect(Collectors.joining(File.pathSeparator));
        JavaCompiler javac = ToolProvider.getSystemJavaCompiler();
        assertNotNull(javac, "a JDK runs the tests");
        ByteArrayOutputStream errors = new ByteArrayOutputStream();
        int rc = javac.run(null, null, errors, "-d", out.toString(), "--module-path", modulePath,
                dir.resolve("src/module-info.java").toString(), src.resolve("Main.java").toString());
        assertEquals(0, rc, "the consumer compiles against the module: " + errors);

        Path java = Path.of(System.getProperty("java.home"), "bin", "java");
        ProcessBuilder pb = new ProcessBuilder(java.toString(),
                "-Dprocscope.nvml.library=" + NvmlDouble.library(NvmlDouble.FULL),
                "--module-path", out + File.pathSeparator + modulePath, "-m", "consumer/consumer.Main")
                .redirectError(ProcessBuilder.Redirect.INHERIT);
        try (Spawned spawned = new Spawned()) {
            String line = Spawned.readLine(spawned.start(pb), Duration.ofSeconds(60));
            assertEquals(MODULE + " 550.54.15 2 pci=00000000:07:00.0 total=85520809984 pids=[4242] gpm=true", line);
        }
    }
}
