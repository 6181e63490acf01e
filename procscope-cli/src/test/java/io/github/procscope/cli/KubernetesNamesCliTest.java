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

    @Test
    void aRuntimeThatNeverAnswersGivesOneLineAndTheRestOfTheListing() {
        runtime.hang();
        String line = "the container runtime socket " + cri + " did not answer within 5s; pods are shown without"
                + " names";
        List<String[]> commands = List.of(new String[] {"ps", "--by-pod"}, new String[] {"tree"},
                new String[] {"gpu"}, new String[] {"watch", "4200", "--count", "2", "--interval", "100ms", "--live"});
        for (String[] c : commands) {
            List<String> args = new ArrayList<>(List.of(c));
            args.addAll(List.of("--cri-socket", cri.toString()));
            long t0 = System.nanoTime();
            CliRun r = run(args.toArray(new String[0]));
            double seconds = (System.nanoTime() - t0) / 1e9;
            assertEquals(0, r.status(), c[0] + ": " + r.err());
            // the listing's deadline (5 s) once, plus a generous margin for a loaded machine
            assertTrue(seconds < 5 + 55, c[0] + " took " + seconds + " s");
            // watch's live line may add its own notes (a refresh that reads every process); the names' line is one
            assertEquals(List.of("procscope " + c[0] + ": " + line), r.err().lines()
                    .filter(l -> !l.startsWith("(")).toList(), c[0]);
            assertFalse(r.out().contains("trainer-0"), r.out());
            assertTrue(r.out().contains(c[0].equals("ps") ? POD_UID : "4200"), c[0] + ": " + r.out());
        }
        assertTrue(runtime.calls.get() >= commands.size(), "each command asked the runtime");
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
