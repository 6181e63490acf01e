package io.github.procscope.cli;

import io.github.procscope.kubernetes.FakeRuntime;
import io.github.procscope.kubernetes.UnixServer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Enumeration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;
import java.util.zip.ZipEntry;
import java.util.zip.ZipFile;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The tool's jar without the native libraries it never loads (netty-tcnative's OpenSSL, and every operating
 * system's but Linux's) nor the copy of jnr's assembler no class refers to (see the shade plugin's filters), run as {@code java -jar} on this JVM's JDK: the Kubernetes
 * names still come over a unix socket through gRPC's Netty (epoll), the NVML binding still loads JNA's dispatch
 * library, and signals still go through the native wall (jnr's libraries on JDK 17 to 21).
 */
class ShadedJarIT {
    private static final String POD_UID = "0b7e6f5a-1c2d-4e3f-9a8b-7c6d5e4f3a2b";
    private static final String CONTAINER_ID = "3f4e5d6c7b8a99887766554433221100ffeeddccbbaa00112233445566778899";
    /** What only another operating system, or TLS through OpenSSL, would load, and a copy no class refers to. */
    private static final Pattern DEAD = Pattern.compile("META-INF/native/.*tcnative.*"
            + "|com/sun/jna/(aix|darwin|dragonflybsd|freebsd|openbsd|sunos|win32)-.*"
            + "|jni/.*(AIX|Darwin|DragonFlyBSD|FreeBSD|OpenBSD|SunOS|Windows).*"
            + "|jnr/constants/platform/(aix|darwin|dragonflybsd|freebsd|openbsd|solaris|windows)/.*"
            + "|com/kenai/jnr/.*");

    private static Path jar() {
        Path jar = Readme.repositoryRoot().resolve("procscope-cli/target/procscope.jar");
        assertTrue(Files.isRegularFile(jar), "the tool was packaged: " + jar);
        return jar;
    }

    @Test
    void theJarCarriesLinuxsNativeLibrariesAndNoOthers() throws IOException {
        List<String> dead = new ArrayList<>();
        List<String> names = new ArrayList<>();
        try (ZipFile zip = new ZipFile(jar().toFile())) {
            for (Enumeration<? extends ZipEntry> e = zip.entries(); e.hasMoreElements(); ) {
                String name = e.nextElement().getName();
                names.add(name);
                if (DEAD.matcher(name).matches()) {
                    dead.add(name);
                }
            }
        }
        assertEquals(List.of(), dead, "nothing the tool never loads");
        for (String needed : List.of("META-INF/native/libio_grpc_netty_shaded_netty_transport_native_epoll_x86_64.so",
                "com/sun/jna/linux-x86-64/libjnidispatch.so", "com/sun/jna/linux-aarch64/libjnidispatch.so",
                "jni/x86_64-Linux/libjffi-1.2.so", "jni/aarch64-Linux/libjffi-1.2.so")) {
            assertTrue(names.contains(needed), "the jar keeps " + needed);
        }
        assertTrue(names.stream().anyMatch(n -> n.startsWith("jnr/constants/platform/linux/")), "Linux's constants");
        assertTrue(names.stream().anyMatch(n -> n.startsWith("jnr/x86asm/")), "the assembler jnr-ffi uses");
    }

    @Test
    @SuppressWarnings("try") // the server is held for its scope, not used by name
    void theJarNamesPodsOverAUnixSocketLoadsNvmlAndSignals(@TempDir Path dir) throws Exception {
        FakeRuntime runtime = new FakeRuntime().sandbox("sb-trainer", "ml", "trainer-0", POD_UID, true, 1)
                .container(CONTAINER_ID, "sb-trainer", "worker");
        Path cri = dir.resolve("containerd.sock");
        try (MachineFixture m = MachineFixture.create(); UnixServer server = UnixServer.start(cri, runtime)) {
            // A listing waits 5 s for the names, loading gRPC and connecting included, and lists without them when
            // that is not enough (a busy machine): the names must come in one of a few runs, and no run may fail.
            List<NativeAccessWarningsIT.Run> runs = new ArrayList<>();
            boolean named = false;
            for (int i = 0; i < 6 && !named; i++) {
                NativeAccessWarningsIT.Run pods = tool(dir, "--procfs-root", m.proc().toString(), "ps", "--by-pod",
                        "--cri-socket", cri.toString());
                runs.add(pods);
                assertEquals(0, pods.status(), pods.toString());
                assertQuiet(pods);
                named = pods.out().lines().anyMatch(l -> l.startsWith(POD_UID) && l.endsWith(" ml/trainer-0"));
            }
            assertTrue(named, runs.toString());
            assertTrue(runtime.calls.get() > 0, "the runtime was asked over its socket");
        }

        NativeAccessWarningsIT.Run gpu = tool(dir, "-Dprocscope.nvml.library=" + NvmlDouble.library(), "gpu");
        assertEquals(0, gpu.status(), gpu.toString());
        assertQuiet(gpu);

        Process sleeper = new ProcessBuilder("sleep", "120").start();
        try {
            NativeAccessWarningsIT.Run stop = tool(dir, "stop", "--grace", "5s", Long.toString(sleeper.pid()));
            assertEquals(0, stop.status(), stop.toString());
            assertTrue(sleeper.waitFor(60, TimeUnit.SECONDS), "the stop command ended the sleeper: " + stop);
            assertQuiet(stop);
        } finally {
            sleeper.destroyForcibly();
        }
    }

    private static void assertQuiet(NativeAccessWarningsIT.Run r) {
        assertTrue(r.err().stream().noneMatch(l -> l.contains("Exception") || l.contains("Error")
                || l.contains("tcnative")), r.toString());
    }

    /** Runs the jar on this JVM's JDK; options starting with {@code -D} go before {@code -jar}. */
    private static NativeAccessWarningsIT.Run tool(Path dir, String... args) throws Exception {
        List<String> cmd = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "--enable-native-access=ALL-UNNAMED", "-Dsun.misc.unsafe.memory.access=allow"));
        List<String> rest = new ArrayList<>();
        for (String a : args) {
            (a.startsWith("-D") ? cmd : rest).add(a);
        }
        cmd.add("-jar");
        cmd.add(jar().toString());
        cmd.addAll(rest);
        return NativeAccessWarningsIT.run(cmd, dir);
    }
}
