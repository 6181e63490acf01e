package io.github.procscope.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.github.procscope.kubernetes.FakeRuntime;
import io.github.procscope.kubernetes.UnixServer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Kubernetes names in {@code ps}, {@code tree} and {@code gpu}, from a fake container runtime served on a unix
 * socket (the CRI protos the client is generated from) and given with {@code --cri-socket}: the fixture machine's
 * ghost worker 4200 runs in pod {@code 0b7e6f5a-…}'s containerd container {@code 3f4e5d6c…}, which the runtime
 * names {@code ml/trainer-0}, container {@code worker}.
 */
class KubernetesNamesCliTest {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String POD_UID = "0b7e6f5a-1c2d-4e3f-9a8b-7c6d5e4f3a2b";
    private static final String CONTAINER_ID = "3f4e5d6c7b8a99887766554433221100ffeeddccbbaa00112233445566778899";

    @TempDir
    Path dir;

    private MachineFixture m;
    private AutoCloseable nvml;
    private UnixServer server;
    private FakeRuntime runtime;
    private Path cri;

    @BeforeEach
    void setUp() {
        m = MachineFixture.create();
        NvmlDouble.trainingNode();
        nvml = NvmlDouble.use(NvmlDouble.library());
        runtime = new FakeRuntime().sandbox("sb-trainer", "ml", "trainer-0", POD_UID, true, 1)
                .container(CONTAINER_ID, "sb-trainer", "worker");
        cri = dir.resolve("containerd.sock");
        server = UnixServer.start(cri, runtime);
    }

    @AfterEach
    void tearDown() throws Exception {
        server.close();
        nvml.close();
        m.close();
        NvmlDouble.assertClosed();
    }

    private CliRun run(String... args) {
        List<String> all = new ArrayList<>(List.of("--procfs-root", m.proc().toString()));
        all.addAll(List.of(args));
        return CliRun.of(all.toArray(new String[0]));
    }

    @Test
    void psByPodAndByContainerNameThePod() throws Exception {
        CliRun pods = run("ps", "--by-pod", "--cri-socket", cri.toString());
        assertEquals(0, pods.status(), pods.err());
        assertTrue(pods.out().lines().anyMatch(l -> l.startsWith(POD_UID) && l.endsWith(" ml/trainer-0")),
                pods.out());
        assertTrue(pods.out().lines().findFirst().orElseThrow().contains("NAMESPACE/NAME"), pods.out());

        // the names come last: at 80 columns they are cut, never the totals
        CliRun containers = run("ps", "--by-container", "--cri-socket", cri.toString());
        assertTrue(containers.out().lines().anyMatch(l -> l.matches("3f4e5d6c7b8a containerd " + POD_UID
                + "\\s+1\\s+256M\\s+ml/t.*")), containers.out());

        JsonNode doc = JSON.readTree(run("--json", "ps", "--by-pod", "--cri-socket", cri.toString()).out());
        JsonNode pod = find(doc.get("groups"), "podUid", POD_UID);
        assertEquals("ml", pod.get("namespace").asText());
        assertEquals("trainer-0", pod.get("pod").asText());
        JsonNode outside = find(doc.get("groups"), "podUid", null);
        assertFalse(outside.has("pod"), outside.toString());

        JsonNode byContainer = JSON.readTree(run("--json", "ps", "--by-container", "--cri-socket", cri.toString())
                .out());
        boolean named = false;
        for (JsonNode g : byContainer.get("groups")) {
            JsonNode ctr = g.get("container");
            if (ctr != null && ctr.isObject() && CONTAINER_ID.equals(ctr.path("id").asText())) {
                assertEquals("worker", ctr.get("name").asText());
                assertEquals("trainer-0", ctr.get("pod").asText());
                named = true;
            }
        }
        assertTrue(named, byContainer.toString());
    }

    @Test
    void gpuAndTreeNameTheHoldersPod() throws Exception {
        CliRun gpu = run("gpu", "--cri-socket", cri.toString());
        assertEquals(0, gpu.status(), gpu.err());
        assertTrue(gpu.out().lines().anyMatch(l -> l.matches("\\s*1\\s+4200 C\\s+pt_data_worker\\s+8\\.0G\\s+"
                + "ml/trainer-0\\s+ghost: parent gone")), gpu.out());
        JsonNode doc = JSON.readTree(run("--json", "gpu", "--cri-socket", cri.toString()).out());
        JsonNode holder = doc.get("devices").get(1).get("processes").get(0);
        assertEquals(4200, holder.get("pid").asLong());
        assertEquals("worker", holder.get("container").get("name").asText());
        assertEquals("ml", holder.get("container").get("namespace").asText());

        CliRun tree = run("tree", "--cri-socket", cri.toString());
        assertEquals(0, tree.status(), tree.err());
        assertTrue(tree.out().lines().anyMatch(l -> l.contains("4200 pt_data_worker") && l.endsWith("ml/trainer-0")),
                tree.out());
    }

    @Test
    void underAFixtureRootNoSocketIsAskedUnlessOneIsGiven() {
        CliRun r = run("gpu");
        assertEquals(0, r.status(), r.err());
        assertTrue(r.out().lines().anyMatch(l -> l.contains("4200 C") && l.contains("pod:0b7e6f5a")), r.out());
        assertEquals(0, runtime.calls.get(), "the fixture's pods are not this node's");
        assertEquals("", r.err());
    }

    @Test
    void aMissingSocketGivesNoNamesAndOneLine() {
        Path absent = dir.resolve("absent.sock");
        CliRun r = run("ps", "--by-pod", "--cri-socket", absent.toString());
        assertEquals(0, r.status(), r.err());
        assertTrue(r.out().lines().anyMatch(l -> l.startsWith(POD_UID)), r.out());
        assertFalse(r.out().contains("trainer-0"), r.out());
        List<String> lines = r.err().lines().toList();
        assertEquals(1, lines.size(), r.err());
        assertTrue(lines.get(0).startsWith("procscope ps: ") && lines.get(0).contains(absent.toString()), r.err());
    }

    private static JsonNode find(JsonNode array, String field, String value) {
        for (JsonNode n : array) {
            JsonNode v = n.get(field);
            if (value == null ? v == null || v.isNull() : v != null && value.equals(v.asText())) {
                return n;
            }
        }
        return null;
    }
}
