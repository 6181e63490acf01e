package io.github.procscope.kubernetes;

import io.github.procscope.api.KubernetesNamesProvider;
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
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The packaged jar as a named module: its descriptor, and a consumer module on the module path (gRPC, protobuf and
 * Guava as automatic modules) that finds the provider through the service loader and resolves a container and a
 * GPU from fake servers this test runs.
 */
class ModulePathIT {
    private static final String MODULE = "io.github.procscope.kubernetes";

    private static Path jarOf(Class<?> type) {
        try {
            Path p = Path.of(type.getProtectionDomain().getCodeSource().getLocation().toURI());
            assertTrue(p.getFileName().toString().endsWith(".jar"), type + " comes from " + p + ", not a jar");
            return p;
        } catch (java.net.URISyntaxException e) {
            throw new AssertionError(e);
        }
    }

    /** @return this module's jar, the API's, and the jars of gRPC, protobuf, Guava and what they bring */
    private static List<Path> modulePath() {
        List<Path> path = new ArrayList<>(List.of(jarOf(GrpcKubernetesNamesProvider.class),
                jarOf(KubernetesNamesProvider.class)));
        for (String e : System.getProperty("java.class.path").split(File.pathSeparator)) {
            if (e.endsWith(".jar") && (e.contains("/io/grpc/") || e.contains("/com/google/")
                    || e.contains("/io/perfmark/") || e.contains("/org/codehaus/mojo/") || e.contains("/org/jspecify/"))
                    && !e.contains("guava-testlib")) {
                path.add(Path.of(e));
            }
        }
        return path;
    }

    @Test
    void theJarIsANamedModuleThatExportsOnlyItsProviderPackage() {
        ModuleDescriptor d = ModuleFinder.of(jarOf(GrpcKubernetesNamesProvider.class)).findAll().iterator().next()
                .descriptor();
        assertEquals(MODULE, d.name());
        assertFalse(d.isAutomatic());
        assertEquals(Set.of(MODULE), d.exports().stream().map(ModuleDescriptor.Exports::source)
                .collect(Collectors.toSet()));
        assertEquals(Set.of(), d.opens());
        assertTrue(d.packages().contains(MODULE + ".cri") && d.packages().contains(MODULE + ".podresources"),
                d.packages().toString());
        ModuleDescriptor.Provides provides = d.provides().iterator().next();
        assertEquals(KubernetesNamesProvider.class.getName(), provides.service());
        assertEquals(List.of(GrpcKubernetesNamesProvider.class.getName()), provides.providers());
    }

    private static final String CONSUMER_MODULE = """
            module consumer {
                requires io.github.procscope.api;
                uses io.github.procscope.api.KubernetesNamesProvider;
            }
            """;

    private static final String CONSUMER_MAIN = """
            package consumer;

            import io.github.procscope.api.cgroup.Container;
            import io.github.procscope.api.kubernetes.KubernetesNames;
            import io.github.procscope.api.kubernetes.KubernetesOptions;
            import io.github.procscope.api.KubernetesNamesProvider;
            import java.util.ServiceLoader;
            import java.nio.file.Path;
            import java.time.Duration;
            import java.util.Optional;

            public final class Main {
                public static void main(String[] args) {
                    KubernetesNamesProvider p = ServiceLoader.load(KubernetesNamesProvider.class).findFirst().orElseThrow();
                    try (KubernetesNames names = p.open(KubernetesOptions.defaults()
                            .withCriSocket(Path.of(args[0])).withPodResourcesSocket(Path.of(args[1]))
                            .withDeadline(Duration.ofSeconds(30)))) {
                        System.out.println(names.getClass().getModule().getName() + " "
                                + names.container(new Container(Optional.empty(), args[2])).orElseThrow().pod() + " "
                                + names.gpu(args[3]).get(0).container() + " " + names.sources().get(1).state());
                    }
                }
            }
            """;

    @Test
    void aConsumerModuleResolvesNamesThroughTheServiceLoader(@TempDir Path dir) throws IOException {
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
        assertEquals(0, rc, "the consumer compiles against the API module: " + errors);

        Path sockets = Files.createDirectories(dir.resolve("s"));
        FakeRuntime runtime = new FakeRuntime().sandbox("sb", "ml", "trainer-0", "uid-0", true, 1)
                .container(NamesMain.CONTAINER, "sb", "trainer");
        FakeKubelet kubelet = new FakeKubelet()
                .allocate("ml", "trainer-0", "trainer", "nvidia.com/gpu", NamesMain.GPU);
        UnixServer r = UnixServer.start(sockets.resolve("containerd.sock"), runtime);
        UnixServer k = UnixServer.start(sockets.resolve("kubelet.sock"), kubelet);
        try {
            // On the module path, native access is granted to the module that loads Netty's epoll library.
            List<String> cmd = new ArrayList<>(List.of(ChildJvm.java().toString(),
                    "--enable-native-access=io.grpc.netty.shaded"));
            if (Runtime.version().feature() >= 24) {
                cmd.add("--sun-misc-unsafe-memory-access=allow");
            }
            cmd.addAll(List.of("--module-path", out + File.pathSeparator + modulePath, "-m", "consumer/consumer.Main",
                    sockets.resolve("containerd.sock").toString(), sockets.resolve("kubelet.sock").toString(),
                    NamesMain.CONTAINER, NamesMain.GPU));
            ChildJvm c = ChildJvm.run(cmd, Duration.ofMinutes(2));
            assertEquals("", c.stderr());
            assertEquals(MODULE + " trainer-0 trainer ANSWERED\n", c.stdout());
            assertEquals(0, c.exitCode());
        } finally {
            k.close();
            r.close();
        }
    }
}
