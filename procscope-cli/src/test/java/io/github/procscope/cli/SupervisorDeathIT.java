package io.github.procscope.cli;

import com.fasterxml.jackson.databind.JsonNode;
import io.github.procscope.api.Procscope;
import io.github.procscope.api.core.ProcessKey;
import io.github.procscope.api.process.ProcessInfo;
import io.github.procscope.api.process.ProcessState;
import io.github.procscope.api.signals.Signal;
import io.github.procscope.testing.Spawned;
import io.github.procscope.testing.Unprivileged;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * A supervisor killed with SIGKILL (as the OOM killer does) takes its job with it: the job's first process, its
 * children and grandchildren that ignore TERM, and, where the job has a cgroup of its own (root, cgroup v2 with
 * {@code cgroup.kill}), a grandchild that double-forked into a session of its own. Each test kills the supervisor
 * and waits, with a generous deadline, until nothing of the job is left; how long that took is printed.
 */
class SupervisorDeathIT {
    private static final Duration TIMEOUT = Duration.ofSeconds(90);
    private static final Duration GONE_DEADLINE = Duration.ofSeconds(30);

    /** A process that ignores TERM, writes its pid, starts the rest of its arguments in the background, and waits. */
    private static final String WORKER = "trap '' TERM\necho $$ > \"$1\"\nshift\n"
            + "if [ $# -gt 0 ]; then \"$@\" & fi\nwhile :; do sleep 0.1; done\n";
    /** The job: its first process writes its pid, starts a child and a grandchild, and (with "daemon") a daemon. */
    private static final String JOB = "echo $$ > \"$1/leader\"\n"
            + "sh \"$1/worker.sh\" \"$1/child\" sh \"$1/worker.sh\" \"$1/grandchild\" &\n"
            + "if [ \"$2\" = daemon ]; then ( setsid sh \"$1/worker.sh\" \"$1/daemon\" & ); fi\n"
            + "exec sleep 600\n";

    private final Procscope scope = Procscope.system();

    private static Path jobDir(Path tmp) throws Exception {
        Files.setAttribute(tmp, "unix:mode", 01777);
        Path d = Files.createDirectory(tmp.resolve("job"));
        Files.setAttribute(d, "unix:mode", 01777);
        Files.writeString(d.resolve("worker.sh"), WORKER);
        Files.writeString(d.resolve("job.sh"), JOB);
        for (String f : List.of("worker.sh", "job.sh")) {
            Files.setPosixFilePermissions(d.resolve(f), PosixFilePermissions.fromString("rw-r--r--"));
        }
        return d;
    }

    /** @return the job's processes, once each has written its pid, keyed (pid and start time) */
    private Map<String, ProcessKey> awaitJob(Path d, List<String> names) {
        Map<String, ProcessKey> keys = new LinkedHashMap<>();
        for (String n : names) {
            Path f = d.resolve(n);
            Spawned.await(TIMEOUT, n + " of the job", () -> {
                try {
                    return Files.exists(f) && Files.readString(f).strip().matches("\\d+");
                } catch (java.io.IOException e) {
                    return false;
                }
            });
            try {
                keys.put(n, scope.processes().key(Long.parseLong(Files.readString(f).strip())));
            } catch (java.io.IOException e) {
                throw new AssertionError(e);
            }
        }
        return keys;
    }

    private boolean alive(ProcessKey k) {
        try {
            ProcessInfo p = scope.processes().process(k.pid());
            return p.startTimeTicks() == k.startTimeTicks() && p.state() != ProcessState.ZOMBIE
                    && p.state() != ProcessState.DEAD;
        } catch (RuntimeException e) {
            return false;
        }
    }

    /** Kills the supervisor and waits until nothing of the job is left. @return how long that took */
    private Duration killAndAwaitTheEnd(long supervisor, Map<String, ProcessKey> job) {
        for (Map.Entry<String, ProcessKey> e : job.entrySet()) {
            assertTrue(alive(e.getValue()), e.getKey() + " runs before the supervisor is killed");
        }
        assertTrue(scope.signals().send(scope.processes().key(supervisor), Signal.KILL).delivered());
        long t0 = System.nanoTime(); // from the delivery: the first send of a JVM also binds the native calls
        Spawned.await(GONE_DEADLINE, "the end of every process of the job " + job, () ->
                job.values().stream().noneMatch(this::alive));
        return Duration.ofNanos(System.nanoTime() - t0);
    }

    private static boolean inOwnCgroup(long pid) throws Exception {
        for (String l : Files.readAllLines(Path.of("/proc/" + pid + "/cgroup"))) {
            if (l.startsWith("0::") && l.contains("/procscope-job-")) {
                return true;
            }
        }
        return false;
    }

    @Test
    void asRootTheJobsCgroupEndsEvenADaemonThatLeftItsSession(@TempDir Path tmp) throws Exception {
        assumeTrue("root".equals(System.getProperty("user.name")), "needs root for a cgroup");
        Path d = jobDir(tmp);
        try (Spawned spawned = new Spawned()) {
            Process run = spawned.start(Spawned.javaCommand(List.of(), ProcscopeCli.class, "run", "--grace", "1s",
                    "--", "sh", d.resolve("job.sh").toString(), d.toString(), "daemon")
                    .redirectOutput(ProcessBuilder.Redirect.DISCARD).redirectError(tmp.resolve("err").toFile()));
            Map<String, ProcessKey> job = awaitJob(d, List.of("leader", "child", "grandchild", "daemon"));
            job.values().forEach(k -> spawned.adopt(k.pid()));
            assumeTrue(inOwnCgroup(job.get("leader").pid()), "no cgroup v2 with cgroup.kill for the job here");
            assertTrue(inOwnCgroup(job.get("daemon").pid()), "the daemon is in the job's cgroup");
            assertTrue(scope.processes().process(job.get("daemon").pid()).sid() != job.get("leader").pid(),
                    "the daemon left the job's session");
            Duration took = killAndAwaitTheEnd(run.pid(), job);
            System.out.println("SupervisorDeathIT as root with a cgroup: every process of the job gone " + took.toMillis()
                    + " ms after SIGKILL to the supervisor (grace 1 s)");
            String err = Files.readString(tmp.resolve("err"));
            assertTrue(err.contains("procscope: the supervisor (pid " + run.pid() + ") of job " + job.get("leader").pid()
                    + " died; ending the job"), err);
        }
    }

    @Test
    void asNobodyWithoutACgroupTheJobsProcessGroupIsEnded(@TempDir Path tmp) throws Exception {
        assumeTrue(Unprivileged.available(), "needs root and setpriv to run as nobody");
        Path d = jobDir(tmp);
        try (Spawned spawned = new Spawned()) {
            Process run = spawned.start(Unprivileged.java(ProcscopeCli.class, "run", "--grace", "1s", "--", "sh",
                    d.resolve("job.sh").toString(), d.toString())
                    .redirectOutput(ProcessBuilder.Redirect.DISCARD).redirectError(tmp.resolve("err").toFile()));
            Map<String, ProcessKey> job = awaitJob(d, List.of("leader", "child", "grandchild"));
            job.values().forEach(k -> spawned.adopt(k.pid()));
            assertEquals(65534L, scope.processes().process(job.get("leader").pid()).uid());
            assertTrue(!inOwnCgroup(job.get("leader").pid()), "nobody cannot make a cgroup");
            long jvm = run.pid();
            Duration took = killAndAwaitTheEnd(jvm, job);
            System.out.println("SupervisorDeathIT as nobody without a cgroup: every process of the job gone "
                    + took.toMillis() + " ms after SIGKILL to the supervisor (grace 1 s)");
            String err = Files.readString(tmp.resolve("err"));
            assertTrue(err.contains("of job " + job.get("leader").pid() + " died; ending the job"), err);
        }
    }

    /** A detached job whose supervisor is killed ends too, and {@code jobs} says so; its log tells what happened. */
    @Test
    void aDetachedJobEndsWithItsSupervisorAndJobsSaysSo(@TempDir Path tmp) throws Exception {
        Path d = jobDir(tmp);
        Path state = tmp.resolve("state");
        Path logs = tmp.resolve("logs");
        List<String> args = new ArrayList<>(List.of("run", "--detach", "--grace", "1s", "--log", logs.toString(),
                "--state-dir", state.toString(), "--", "sh", d.resolve("job.sh").toString(), d.toString()));
        try (Spawned spawned = new Spawned()) {
            Process detaching = spawned.start(Spawned.javaCommand(List.of(), ProcscopeCli.class,
                    args.toArray(String[]::new)).redirectError(ProcessBuilder.Redirect.INHERIT));
            String line = Spawned.readLine(detaching, TIMEOUT);
            Matcher m = Pattern.compile("job (\\S+) \\(pid (\\d+), supervisor (\\d+)\\)").matcher(line);
            assertTrue(m.find(), line);
            String id = m.group(1);
            long supervisor = Long.parseLong(m.group(3));
            spawned.adopt(supervisor);
            Map<String, ProcessKey> job = awaitJob(d, List.of("leader", "child", "grandchild"));
            job.values().forEach(k -> spawned.adopt(k.pid()));
            assertEquals(Long.parseLong(m.group(2)), job.get("leader").pid());
            assertEquals("running", status(state, id).path("status").asText());
            Duration took = killAndAwaitTheEnd(supervisor, job);
            System.out.println("SupervisorDeathIT detached: every process of the job gone " + took.toMillis()
                    + " ms after SIGKILL to the supervisor (grace 1 s)");
            JsonNode after = status(state, id);
            assertEquals("supervisor died; job ended", after.path("status").asText(), after.toString());
            String log = Files.readString(logs.resolve(id + ".log"));
            assertTrue(log.contains("procscope: the supervisor (pid " + supervisor + ") of job " + job.get("leader").pid()
                    + " died"), log);
        }
    }

    private static JsonNode status(Path state, String id) throws Exception {
        CliRun r = CliRun.of("--json", "jobs", "--state-dir", state.toString());
        assertEquals(0, r.status(), r.err());
        for (JsonNode j : Context.mapper().readTree(r.out())) {
            if (j.path("id").asText().equals(id)) {
                return j;
            }
        }
        throw new AssertionError("no job " + id + " in " + r.out());
    }
}
