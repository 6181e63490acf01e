package io.github.procscope.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.github.procscope.kubernetes.FakeKubelet;
import io.github.procscope.kubernetes.FakeRuntime;
import io.github.procscope.kubernetes.UnixServer;
import io.github.procscope.testing.Spawned;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.Deque;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * The Grafana dashboard {@code deploy/grafana/procscope.json}, every panel of it, against a real Prometheus that
 * scrapes {@code procscope serve} over a staged world: a job started with {@code procscope run} (its tree one group
 * under {@code --group-by job}, its leader holding GPU memory) that left a process behind which its supervisor
 * adopted (a ghost holding GPU memory), a zombie under its parent, a process holding a deleted file open, a run
 * that the OOM killer ended in its memory cgroup, a process in a Kubernetes container's cgroup that a fake CRI
 * runtime names {@code ml/trainer-0/worker} and that holds GPU memory on a GPU the fake kubelet allocated to that
 * pod, GPU 0 of the NVML test double idle while holding memory, and its GPU performance reads failing (a read error
 * counted). The test resolves the dashboard's variables through Prometheus as Grafana would, runs every panel's
 * every query through Prometheus's HTTP API and fails on a query that Prometheus refuses or that returns no data,
 * and on a panel without a title or a unit; then checks a few values against what it staged. Every process the
 * test starts is ended by its pid.
 */
class GrafanaDashboardIT {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Path DASHBOARD = Path.of("../deploy/grafana/procscope.json");
    private static final String POD_UID = "5d1c0a2e-7b3f-4c8d-9e6a-1f2b3c4d5e6f";
    private static final String CONTAINER_ID = "9a8b7c6d5e4f30211203948576afbecd9a8b7c6d5e4f30211203948576afbecd";
    private static final String GPU0_UUID = "GPU-abc00000-1111-2222-3333-000000444444";
    private static final long GIB = NvmlDouble.GIB;
    /** How long the panels may take to have data: the doctor's first examination, three scrapes for idle-holding. */
    private static final Duration DATA_DEADLINE = Duration.ofSeconds(300);
    /** What the test puts for Grafana's built-in interval variables (scrapes are 2 s apart). */
    private static final Map<String, String> BUILT_INS = Map.of("__rate_interval", "20s", "__interval", "10s",
            "__range", "10m");

    private final Deque<AutoCloseable> toClose = new ArrayDeque<>();

    @AfterEach
    void closeEverything() throws Exception {
        Exception first = null;
        while (!toClose.isEmpty()) {
            try {
                toClose.pop().close();
            } catch (Exception e) {
                first = first == null ? e : first;
            }
        }
        if (first != null) {
            throw first;
        }
    }

    /** The dashboard's model as Grafana reads it, checked panel by panel. */
    @Test
    void everyPanelHasATitleAUnitAndQueries() throws Exception {
        JsonNode dash = JSON.readTree(DASHBOARD.toFile());
        assertFalse(dash.path("title").asText().isBlank(), "the dashboard has a title");
        assertFalse(dash.path("uid").asText().isBlank(), "the dashboard has a uid");
        assertTrue(dash.path("panels").size() >= 10, "panels: " + dash.path("panels").size());
        for (JsonNode p : dash.path("panels")) {
            String title = p.path("title").asText();
            assertFalse(title.isBlank(), "a panel without a title: " + p);
            assertFalse(p.path("fieldConfig").path("defaults").path("unit").asText().isBlank(),
                    "panel \"" + title + "\" has no unit");
            assertTrue(p.path("targets").size() > 0, "panel \"" + title + "\" has no query");
            assertEquals("${datasource}", p.path("datasource").path("uid").asText(), title);
            for (JsonNode t : p.path("targets")) {
                assertFalse(t.path("expr").asText().isBlank(), "panel \"" + title + "\" has an empty query");
            }
            assertTrue(p.path("gridPos").path("w").asInt() > 0 && p.path("gridPos").path("h").asInt() > 0, title);
        }
    }

    @Test
    void everyPanelsQueriesReturnDataFromAPrometheusScrapingServeOverAStagedWorld(@TempDir Path tmp)
            throws Exception {
        assumeTrue("root".equals(System.getProperty("user.name")), "needs root: memory and Kubernetes cgroups");
        assumeTrue(Files.isRegularFile(Path.of("/sys/fs/cgroup/memory/memory.limit_in_bytes"))
                || Files.isRegularFile(Path.of("/sys/fs/cgroup/cgroup.controllers")), "no memory cgroup controller");
        Optional<Path> cgroup2 = cgroup2Mount();
        assumeTrue(cgroup2.isPresent(), "no cgroup2 hierarchy mounted: no Kubernetes container cgroup to stage");
        JsonNode dash = JSON.readTree(DASHBOARD.toFile());
        String tag = Long.toString(ThreadLocalRandom.current().nextLong(1L << 40), 36);
        Spawned spawned = new Spawned();
        toClose.push(spawned);

        // The zombie: sh forks a child that ends once sh has become a sleep, which never reaps it.
        Process zombieParent = spawned.start("sh", "-c",
                "p=$$; (until [ \"$(cat /proc/$p/comm)\" != sh ]; do sleep 0.01; done;"
                + " exec sleep 0) & exec sleep 600");

        // A file of 8 MB on the build directory's file system, deleted while a process holds it open.
        Path disk = Files.createTempDirectory(Path.of("target").toAbsolutePath(), "dashboard-it");
        toClose.push(() -> deleteTree(disk));
        Path held = disk.resolve("held");
        Path heldReady = disk.resolve("held-ready");
        spawned.start("perl", "-e", "open(F, '>', $ARGV[0]) or die; syswrite(F, 'd' x 8_000_000); unlink($ARGV[0]);"
                + " open(R, '>', $ARGV[1]) or die; close(R); sleep 600", held.toString(), heldReady.toString());
        awaitFile(heldReady, "the deleted file's holder");

        // A run the OOM killer ends in its memory cgroup (a JVM of its own, as a user runs it).
        Process oom = spawned.start(Spawned.javaCommand(List.of(), ProcscopeCli.class, "run", "--memory-limit",
                "64M", "--forward", "none", "--", "perl", "-e", "my $x = 'a' x (256*1024*1024); sleep 5;")
                .redirectOutput(ProcessBuilder.Redirect.DISCARD).redirectError(tmp.resolve("oom.err").toFile()));

        // The job: procscope run supervises perl JOB DIR, which leaves a sleep behind (forked by a child that exits
        // at once, so the supervisor, a subreaper, adopts it: a ghost), starts another sleep and sleeps itself.
        Path jobDir = Files.createDirectory(tmp.resolve("job"));
        Path script = tmp.resolve("job.pl");
        Files.writeString(script, String.join("\n",
                "sub say { open(my $f, '>', \"$ARGV[0]/$_[0].tmp\") or die; print $f $_[1]; close($f);",
                "  rename(\"$ARGV[0]/$_[0].tmp\", \"$ARGV[0]/$_[0]\") or die }",
                "my $c = fork(); if ($c == 0) { my $g = fork(); if ($g == 0) { exec('sleep', '600') }",
                "  say('ghost', $g); exit 0 }",
                "waitpid($c, 0);",
                "if (fork() == 0) { exec('sleep', '600') }",
                "say('leader', $$);",
                "sleep 600;", ""));
        Process supervisor = spawned.start(Spawned.javaCommand(List.of(), ProcscopeCli.class, "run", "--grace", "1s",
                "--", "perl", script.toString(), jobDir.toString())
                .redirectOutput(ProcessBuilder.Redirect.DISCARD).redirectError(tmp.resolve("run.err").toFile()));
        long leader = Long.parseLong(awaitFile(jobDir.resolve("leader"), "the job's leader").strip());
        long ghost = Long.parseLong(awaitFile(jobDir.resolve("ghost"), "the job's left-behind process").strip());
        spawned.adopt(ghost);
        spawned.adopt(leader);
        ProcessHandle.of(leader).ifPresent(h -> h.children().forEach(c -> spawned.adopt(c.pid())));
        awaitParent(ghost, supervisor.pid());

        // A process of Kubernetes container CONTAINER_ID of pod POD_UID, by its cgroup path (cgroup v2).
        Path kubepods = cgroup2.get().resolve("procscope-it-" + tag);
        Path containerCgroup = kubepods.resolve("kubepods/pod" + POD_UID + "/cri-containerd-" + CONTAINER_ID + ".scope");
        Files.createDirectories(containerCgroup);
        toClose.push(() -> removeCgroups(kubepods));
        toClose.push(spawned); // its processes end (again, if ended already) before the cgroups go
        Process worker = spawned.start("sleep", "600");
        Files.writeString(containerCgroup.resolve("cgroup.procs"), Long.toString(worker.pid()));
        assertTrue(Files.readString(Path.of("/proc/" + worker.pid() + "/cgroup")).contains(CONTAINER_ID),
                "the worker is in its container's cgroup");

        // The fake container runtime and kubelet on unix sockets.
        Path cri = tmp.resolve("containerd.sock");
        Path podResources = tmp.resolve("kubelet.sock");
        toClose.push(UnixServer.start(cri, new FakeRuntime()
                .sandbox("sb-trainer", "ml", "trainer-0", POD_UID, true, 1)
                .container(CONTAINER_ID, "sb-trainer", "worker")));
        toClose.push(UnixServer.start(podResources, new FakeKubelet()
                .allocate("ml", "trainer-0", "worker", "nvidia.com/gpu", GPU0_UUID)));

        assertEquals(137, oom.waitFor(120, TimeUnit.SECONDS) ? oom.exitValue() : -1,
                "the OOM-killed run: " + Files.readString(tmp.resolve("oom.err")));

        // The GPUs: GPU 0 idle while the job's leader holds 2 GiB and the worker 3 GiB, its GPU performance reads
        // failing; GPU 1 busy, the ghost holding 4 GiB of it.
        var nvml = NvmlDouble.reset();
        NvmlDouble.ok(nvml.ndSetValue(0, "util.gpu", 0));
        NvmlDouble.ok(nvml.ndSetValue(0, "memory.used", 10 * GIB));
        NvmlDouble.ok(nvml.ndAddProcess(0, NvmlDouble.COMPUTE, (int) leader, 2 * GIB, NvmlDouble.NO_INSTANCE,
                NvmlDouble.NO_INSTANCE));
        NvmlDouble.ok(nvml.ndAddProcess(0, NvmlDouble.COMPUTE, (int) worker.pid(), 3 * GIB, NvmlDouble.NO_INSTANCE,
                NvmlDouble.NO_INSTANCE));
        NvmlDouble.ok(nvml.ndFail(0, "nvmlGpmSampleGet", 999));
        NvmlDouble.ok(nvml.ndSetValue(1, "util.gpu", 85));
        NvmlDouble.ok(nvml.ndAddProcess(1, NvmlDouble.COMPUTE, (int) ghost, 4 * GIB, NvmlDouble.NO_INSTANCE,
                NvmlDouble.NO_INSTANCE));
        AutoCloseable restoreNvml = NvmlDouble.use(NvmlDouble.library());
        toClose.push(() -> {
            // The doctor's thread, interrupted when serve stops, closes its GPUs when its examination ends.
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
            while (nvml.ndInitCount() > 0 && System.nanoTime() < deadline) {
                Thread.sleep(100);
            }
            NvmlDouble.assertClosed();
        });
        toClose.push(restoreNvml);

        InProcessServe serve = InProcessServe.start("--group-by", "job", "--subreaper",
                Long.toString(supervisor.pid()), "--per-pid", "--doctor-every", "1s", "--deleted-files-every", "1s",
                "--cri-socket", cri.toString(), "--pod-resources-socket", podResources.toString());
        toClose.push(serve);
        PrometheusServer prom = PrometheusServer.start(tmp, "global:\n  scrape_interval: 2s\n  scrape_timeout: 2s\n"
                + "scrape_configs:\n  - job_name: procscope\n    static_configs:\n"
                + "      - targets: [\"127.0.0.1:" + serve.port() + "\"]\n");
        toClose.push(prom);

        // The variables, resolved in order through Prometheus as Grafana resolves them.
        Map<String, String> values = new LinkedHashMap<>(BUILT_INS);
        for (JsonNode v : dash.path("templating").path("list")) {
            if (v.path("type").asText().equals("query")) {
                values.put(v.path("name").asText(), resolve(prom, v, values));
            }
        }
        assertEquals("procscope", values.get("job"));
        assertEquals("127.0.0.1:" + serve.port(), values.get("instance"));

        // Every query of every panel, until each has data.
        Map<String, String> queries = new LinkedHashMap<>();
        for (JsonNode p : dash.path("panels")) {
            for (JsonNode t : p.path("targets")) {
                queries.put(p.path("title").asText() + " / " + t.path("refId").asText(),
                        substitute(t.path("expr").asText(), values));
            }
        }
        Map<String, String> empty = new TreeMap<>(queries);
        long began = System.nanoTime();
        long deadline = began + DATA_DEADLINE.toNanos();
        while (!empty.isEmpty() && System.nanoTime() < deadline) {
            for (var it = empty.entrySet().iterator(); it.hasNext(); ) {
                if (prom.results(it.next().getValue()).size() > 0) {
                    it.remove();
                }
            }
            if (!empty.isEmpty()) {
                Thread.sleep(1000);
            }
        }
        assertTrue(empty.isEmpty(), empty.size() + " of " + queries.size() + " panel queries returned no data within "
                + DATA_DEADLINE.toSeconds() + " s: " + empty + "\nserve: " + serve.err());
        System.out.println("GrafanaDashboardIT: all " + queries.size() + " queries of "
                + dash.path("panels").size() + " panels returned data, the last "
                + TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - began) + " s after Prometheus started");

        // Every metric a panel names is a family serve exports (a counter's samples end with _total).
        Matcher typed = Pattern.compile("(?m)^# TYPE (\\S+) ").matcher(PrometheusServer.get("http://127.0.0.1:"
                + serve.port() + "/metrics"));
        Set<String> families = new TreeSet<>();
        while (typed.find()) {
            families.add(typed.group(1));
        }
        for (String metric : metricsNamed(dash)) {
            assertTrue(families.contains(metric) || metric.endsWith("_total")
                    && families.contains(metric.substring(0, metric.length() - "_total".length())),
                    "the dashboard names " + metric + ", which serve does not export: " + families);
        }

        // What the panels show is what was staged.
        String sel = "{job=\"procscope\",";
        assertEquals(3.0 * GIB, prom.awaitValue("sum(procscope_pod_gpu_memory_bytes" + sel
                + "namespace=\"ml\",pod=\"trainer-0\",container=\"worker\",gpu=\"0\"})", 3.0 * GIB, 0));
        assertEquals(1, prom.query("count(DCGM_FI_DEV_FB_USED" + sel + "gpu=\"0\",pod=\"trainer-0\",namespace=\"ml\"})"));
        assertEquals(2.0 * GIB, prom.awaitValue("sum(procscope_gpu_group_memory_bytes" + sel + "gpu=\"0\",groupname=\"perl:"
                + leader + "\"})", 2.0 * GIB, 0));
        assertEquals(1, prom.awaitValue("procscope_gpu_idle_holding" + sel + "gpu=\"0\"}", 1, 0));
        assertEquals(1, prom.awaitValue("procscope_gpu_ghost_processes" + sel + "gpu=\"1\"}", 1, 0));
        assertEquals(4.0 * GIB, prom.awaitValue("procscope_gpu_ghost_memory_bytes" + sel + "gpu=\"1\"}", 4.0 * GIB, 0));
        assertEquals(1, prom.query("sum(procscope_zombies" + sel + "parent_pid=\"" + zombieParent.pid() + "\"})"));
        assertTrue(prom.query("sum(procscope_deleted_open_bytes{job=\"procscope\"})") >= 8_000_000,
                "the deleted file's 8 MB are held");
        assertTrue(prom.query("sum(procscope_oom_kills_total{job=\"procscope\"})") >= 1, "an OOM kill");
        assertTrue(prom.query("sum(procscope_scrape_errors_total" + sel + "source=\"gpu\"})") >= 1,
                "the failing GPU reads are counted");
        assertTrue(prom.query("sum(namedprocess_namegroup_num_procs" + sel + "groupname=\"perl:" + leader + "\"})") >= 2,
                "the job's tree: its leader and the sleep it started");
    }

    /** @return the metric names the dashboard's queries and variables select (a name before a brace) */
    private static Set<String> metricsNamed(JsonNode dash) {
        List<String> exprs = new ArrayList<>();
        dash.path("panels").forEach(p -> p.path("targets").forEach(t -> exprs.add(t.path("expr").asText())));
        dash.path("templating").path("list").forEach(v -> exprs.add(v.path("definition").asText()));
        Set<String> names = new TreeSet<>();
        Matcher m = Pattern.compile("([a-zA-Z_:][a-zA-Z0-9_:]*)\\{").matcher(String.join("\n", exprs));
        while (m.find()) {
            names.add(m.group(1));
        }
        assertTrue(names.size() >= 10, "metrics named: " + names);
        return names;
    }

    /** @return the value Grafana would give a query variable: its first value, or its "All" value when selected */
    private static String resolve(PrometheusServer prom, JsonNode variable, Map<String, String> values)
            throws Exception {
        String name = variable.path("name").asText();
        String definition = variable.path("query").path("query").asText(variable.path("definition").asText());
        Matcher m = Pattern.compile("^label_values\\((.+),\\s*([a-zA-Z_][a-zA-Z0-9_]*)\\)$")
                .matcher(definition.strip());
        assertTrue(m.find(), "variable " + name + ": not label_values(SELECTOR, LABEL): " + definition);
        String selector = substitute(m.group(1), values);
        String label = m.group(2);
        List<String> found = new ArrayList<>();
        long deadline = System.nanoTime() + DATA_DEADLINE.toNanos();
        while (found.isEmpty() && System.nanoTime() < deadline) {
            JsonNode answer = JSON.readTree(prom.api("/api/v1/label/" + label + "/values?match[]="
                    + URLEncoder.encode(selector, StandardCharsets.UTF_8)));
            assertEquals("success", answer.path("status").asText(), definition + ": " + answer);
            answer.path("data").forEach(x -> found.add(x.asText()));
            if (found.isEmpty()) {
                Thread.sleep(1000);
            }
        }
        assertFalse(found.isEmpty(), "variable " + name + " has no values: " + definition);
        JsonNode current = variable.path("current").path("value");
        boolean all = current.isArray() ? current.toString().contains("$__all") : current.asText().equals("$__all");
        if (all) {
            assertTrue(variable.path("includeAll").asBoolean(), name);
            return variable.path("allValue").asText();
        }
        return found.get(0);
    }

    /** Puts the variables' values in an expression, in Grafana's three syntaxes; fails on one left over. */
    static String substitute(String expr, Map<String, String> values) {
        String out = expr;
        List<String> names = new ArrayList<>(values.keySet());
        names.sort(Comparator.comparingInt(String::length).reversed()); // $instance before $i
        for (String n : names) {
            out = out.replace("${" + n + "}", values.get(n)).replace("[[" + n + "]]", values.get(n))
                    .replace("$" + n, values.get(n));
        }
        assertFalse(out.contains("$"), "a variable the test does not know in: " + expr);
        return out;
    }

    /** @return the mount point of the cgroup v2 hierarchy, if one is mounted */
    private static Optional<Path> cgroup2Mount() throws IOException {
        for (String line : Files.readAllLines(Path.of("/proc/self/mountinfo"))) {
            String[] halves = line.split(" - ", 2);
            if (halves.length == 2 && halves[1].startsWith("cgroup2 ")) {
                return Optional.of(Path.of(halves[0].split(" ")[4]));
            }
        }
        return Optional.empty();
    }

    private static String awaitFile(Path file, String what) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (!Files.exists(file) && System.nanoTime() < deadline) {
            Thread.sleep(50);
        }
        assertTrue(Files.exists(file), what + " never wrote " + file);
        return Files.readString(file);
    }

    /** Waits until a process's parent is the given pid (the orphan's adoption). */
    private static void awaitParent(long pid, long parent) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        long ppid = -1;
        while (System.nanoTime() < deadline) {
            ppid = ProcessHandle.of(pid).flatMap(ProcessHandle::parent).map(ProcessHandle::pid).orElse(-1L);
            if (ppid == parent) {
                return;
            }
            Thread.sleep(50);
        }
        throw new AssertionError("process " + pid + " has parent " + ppid + ", not the supervisor " + parent);
    }

    /** Removes a cgroup tree the test made, deepest first, once its processes have left. */
    private static void removeCgroups(Path top) throws Exception {
        List<Path> dirs = new ArrayList<>();
        try (var walk = Files.walk(top)) {
            walk.filter(Files::isDirectory).forEach(dirs::add);
        }
        dirs.sort(Comparator.comparingInt(Path::getNameCount).reversed());
        for (Path d : dirs) {
            for (int i = 0; ; i++) {
                try {
                    Files.deleteIfExists(d);
                    break;
                } catch (IOException e) {
                    if (i >= 100) {
                        throw e;
                    }
                    Thread.sleep(100); // the last process is still leaving
                }
            }
        }
    }

    private static void deleteTree(Path dir) throws IOException {
        try (var walk = Files.walk(dir)) {
            for (Path p : (Iterable<Path>) walk.sorted(Comparator.reverseOrder())::iterator) {
                Files.deleteIfExists(p);
            }
        }
    }
}
