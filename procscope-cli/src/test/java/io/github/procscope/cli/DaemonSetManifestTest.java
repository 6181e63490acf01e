package io.github.procscope.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import io.github.procscope.api.kubernetes.KubernetesOptions;
import io.github.procscope.metrics.ListenAddress;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code deploy/kubernetes/procscope-daemonset.yaml} against what the tool expects: every flag it passes exists
 * in {@code serve --help}, every path a flag names is inside a read-only mount of the host's same path (the
 * sockets at their defaults), the scrape port is {@code --listen}'s, and the container runs as a user other than
 * root with no capability beyond the three the manifest justifies.
 */
class DaemonSetManifestTest {
    private static final Path MANIFEST = Path.of("../deploy/kubernetes/procscope-daemonset.yaml");
    private static JsonNode pod;
    private static JsonNode container;
    private static Map<String, String> flags;

    @BeforeAll
    static void read() throws IOException {
        assertTrue(Files.isRegularFile(MANIFEST), MANIFEST.toAbsolutePath().toString());
        JsonNode doc = new ObjectMapper(new YAMLFactory()).readTree(MANIFEST.toFile());
        assertEquals("apps/v1", doc.get("apiVersion").asText());
        assertEquals("DaemonSet", doc.get("kind").asText());
        pod = doc.at("/spec/template/spec");
        assertEquals(1, pod.get("containers").size());
        container = pod.get("containers").get(0);
        flags = new LinkedHashMap<>();
        JsonNode args = container.get("args");
        assertEquals("serve", args.get(0).asText());
        for (int i = 1; i < args.size(); i++) {
            String a = args.get(i).asText();
            assertTrue(a.startsWith("--") && a.contains("="), "each option as --NAME=VALUE: " + a);
            flags.put(a.substring(0, a.indexOf('=')), a.substring(a.indexOf('=') + 1));
        }
    }

    @Test
    void everyFlagIsOneServeHas() {
        CliRun help = CliRun.of("serve", "--help");
        assertEquals(0, help.status(), help.err());
        for (String f : flags.keySet()) {
            assertTrue(help.out().contains(f + "="), f + " is not in serve --help:\n" + help.out());
        }
        // and the arguments parse as serve parses them
        assertTrue(ServeCommand.grouper(List.of(flags.get("--group-by")), Set.of()) != null);
    }

    @Test
    void theScrapePortIsTheListenPort() {
        int port = ListenAddress.parse(flags.get("--listen")).getPort();
        assertEquals(9464, port);
        assertFalse(ListenAddress.parse(flags.get("--listen")).getAddress().isLoopbackAddress(),
                "a DaemonSet is scraped from other pods");
        assertEquals(port, container.at("/ports/0/containerPort").asInt());
        assertEquals(Integer.toString(port), annotation("prometheus.io/port"));
        assertEquals("metrics", container.at("/readinessProbe/httpGet/port").asText());
        assertEquals("/healthz", container.at("/readinessProbe/httpGet/path").asText());
    }

    @Test
    void everyPathAFlagNamesIsTheHostsSamePathMountedReadOnly() {
        assertTrue(pod.get("hostPID").asBoolean(), "NVML's pids are the host's");
        Map<String, String> hostPaths = new HashMap<>();
        for (JsonNode v : pod.get("volumes")) {
            hostPaths.put(v.get("name").asText(), v.at("/hostPath/path").asText());
        }
        Map<String, String> mounts = new HashMap<>();
        for (JsonNode m : container.get("volumeMounts")) {
            assertTrue(m.path("readOnly").asBoolean(), "read-only: " + m);
            mounts.put(m.get("mountPath").asText(), hostPaths.get(m.get("name").asText()));
        }
        assertEquals("/proc", mounts.get(flags.get("--procfs-root")));
        assertEquals("/sys", mounts.get(flags.get("--sysfs-root")));
        // the sockets at their default paths, in a mount of the host's directory of the same path
        assertEquals(KubernetesOptions.CONTAINERD_SOCKET, flags.get("--cri-socket"));
        assertEquals(KubernetesOptions.POD_RESOURCES_SOCKET, flags.get("--pod-resources-socket"));
        for (String socket : List.of(flags.get("--cri-socket"), flags.get("--pod-resources-socket"))) {
            String dir = Path.of(socket).getParent().toString();
            assertEquals(dir, mounts.get(dir), socket + " is in no mount of the host's " + dir);
        }
    }

    @Test
    void itRunsAsAnotherUserThanRootWithTheJustifiedCapabilitiesOnly() throws IOException {
        JsonNode sc = container.get("securityContext");
        assertTrue(sc.get("runAsNonRoot").asBoolean());
        assertTrue(sc.get("runAsUser").asInt() > 0);
        assertFalse(sc.get("allowPrivilegeEscalation").asBoolean());
        assertTrue(sc.get("readOnlyRootFilesystem").asBoolean());
        assertFalse(sc.path("privileged").asBoolean());
        assertEquals(List.of("ALL"), strings(sc.at("/capabilities/drop")));
        Set<String> added = new TreeSet<>(strings(sc.at("/capabilities/add")));
        assertEquals(Set.of("DAC_OVERRIDE", "DAC_READ_SEARCH", "SYS_PTRACE"), added);
        String text = Files.readString(MANIFEST);
        for (String cap : added) {
            assertTrue(text.contains("# " + cap + ": "), "no comment justifies " + cap);
        }
        assertFalse(pod.path("hostNetwork").asBoolean(), "the host's network is not needed");
    }

    private static String annotation(String name) {
        try {
            JsonNode doc = new ObjectMapper(new YAMLFactory()).readTree(MANIFEST.toFile());
            return doc.at("/spec/template/metadata/annotations").get(name).asText();
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    private static List<String> strings(JsonNode array) {
        List<String> out = new java.util.ArrayList<>();
        array.forEach(n -> out.add(n.asText()));
        return out;
    }
}
