package io.github.procscope.cli;

import com.fasterxml.jackson.databind.JsonNode;
import io.github.procscope.testing.Spawned;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A job started with {@code procscope run --detach}, a shell with two children ({@code sh -c 'sleep 100 & sleep
 * 100 & wait'}), seen through {@code serve}: its tree's {@code procscope_job_*} series, from the job's record in the
 * state directory, against {@code /proc} of its three processes; and under {@code --group-by job}, one group for the
 * whole job, named after its shell.
 */
class ServeJobsIT {
    private static final Duration TIMEOUT = Duration.ofSeconds(90);
    private static final Pattern STARTED = Pattern.compile("job (\\S+) \\(pid (\\d+), supervisor \\d+\\)");
    private static final Pattern SAMPLE = Pattern.compile("([a-zA-Z_:][a-zA-Z0-9_:]*(?:\\{.*\\})?) (\\S+)");

    private static String read(Path p) {
        try {
            return Files.readString(p);
        } catch (IOException e) {
            return ""; // gone meanwhile
        }
    }

    private static String comm(long pid) {
        return read(Path.of("/proc/" + pid + "/comm")).strip();
    }

    /** @return a field of /proc/PID/status, its first number */
    private static long status(long pid, String field) {
        for (String line : read(Path.of("/proc/" + pid + "/status")).split("\n")) {
            if (line.startsWith(field + ":")) {
                return Long.parseLong(line.substring(field.length() + 1).strip().split("\\s+")[0]);
            }
        }
        throw new AssertionError("no " + field + " in /proc/" + pid + "/status");
    }

    /** @return field N (1-based, as proc(5) numbers them) of /proc/PID/stat */
    private static long stat(long pid, int n) {
        String s = read(Path.of("/proc/" + pid + "/stat"));
        String[] after = s.substring(s.lastIndexOf(')') + 2).split(" ");
        return Long.parseLong(after[n - 3]);
    }

    private static List<Long> children(long pid) {
        List<Long> out = new ArrayList<>();
        ProcessHandle.of(pid).ifPresent(h -> h.children().forEach(c -> out.add(c.pid())));
        return out;
    }

    private static Map<String, Double> scrape(HttpClient http, int port) throws Exception {
        HttpResponse<String> r = http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/metrics"))
                .timeout(Duration.ofSeconds(60)).build(), HttpResponse.BodyHandlers.ofString());
        assertEquals(200, r.statusCode(), r.body());
        Map<String, Double> out = new HashMap<>();
        for (String line : r.body().split("\n")) {
            Matcher m = SAMPLE.matcher(line);
            if (!line.startsWith("#") && m.matches()) {
                out.put(m.group(1), Double.parseDouble(m.group(2)));
            }
        }
        return out;
    }

    @Test
    void aDetachedShellJobIsOneTreeAndOneGroupInServe(@TempDir Path tmp) throws Exception {
        Path state = tmp.resolve("state");
        Path logs = Files.createDirectories(tmp.resolve("logs"));
        try (Spawned spawned = new Spawned()) {
            CliRun r = CliRun.of("run", "--detach", "--log", logs.toString(), "--state-dir", state.toString(), "--",
                    "sh", "-c", "sleep 100 & sleep 100 & wait");
            assertEquals(0, r.status(), r.err());
            Matcher m = STARTED.matcher(r.out());
            assertTrue(m.find(), r.out());
            String id = m.group(1);
            long leader = Long.parseLong(m.group(2));
            JsonNode record = Context.mapper().readTree(state.resolve(id + ".json").toFile());
            spawned.adopt(record.path("supervisor").path("pid").asLong());
            spawned.adopt(leader);
            // the shell has started both sleeps, and both have become sleep
            Spawned.await(TIMEOUT, "the job's two sleeps", () -> {
                List<Long> c = children(leader);
                c.forEach(spawned::adopt);
                return comm(leader).equals("sh") && c.size() == 2 && c.stream().allMatch(p -> comm(p).equals("sleep"));
            });
            List<Long> job = new ArrayList<>(List.of(leader));
            job.addAll(children(leader));

            HttpClient http = HttpClient.newHttpClient();
            try (InProcessServe serve = InProcessServe.start("--state-dir", state.toString(), "--group-by", "job",
                    "--no-gpu", "--no-doctor")) {
                String labels = "{job_id=\"" + id + "\",root_pid=\"" + leader + "\"}";
                Map<String, Double> s = scrape(http, serve.port());
                long rssBytes = 0;
                long vszBytes = 0;
                long threads = 0;
                for (long p : job) {
                    rssBytes += status(p, "VmRSS") * 1024;
                    vszBytes += stat(p, 23);
                    threads += status(p, "Threads");
                }
                assertEquals(3.0, s.get("procscope_job_processes" + labels), s.keySet().stream()
                        .filter(k -> k.startsWith("procscope_job")).toList().toString());
                assertEquals((double) threads, s.get("procscope_job_threads" + labels));
                assertEquals((double) vszBytes, s.get("procscope_job_memory_virtual_bytes" + labels));
                // idle processes: their resident memory stays put between the scrape and the reading of /proc
                double rss = s.get("procscope_job_memory_resident_bytes" + labels);
                assertTrue(Math.abs(rss - rssBytes) <= rssBytes * 0.05, rss + " against /proc's " + rssBytes);
                assertEquals(0.0, s.get("procscope_job_zombies" + labels));
                double cpu = s.get("procscope_job_cpu_time_seconds" + labels);
                long ticks = 0;
                for (long p : job) {
                    ticks += stat(p, 14) + stat(p, 15);
                }
                assertTrue(cpu >= 0 && cpu <= ticks / 100.0 + 0.02, cpu + " s against " + ticks + " ticks");

                // --group-by job: the shell and both sleeps are one group, named after the shell
                assertEquals(3.0, s.get("namedprocess_namegroup_num_procs{groupname=\"sh:" + leader + "\"}"),
                        s.keySet().stream().filter(k -> k.startsWith("namedprocess_namegroup_num_procs")).toList()
                                .toString());
                for (long p : job.subList(1, job.size())) {
                    assertFalse(s.containsKey("namedprocess_namegroup_num_procs{groupname=\"sleep:" + p + "\"}"));
                }

                // the job ended (by its pids): its series go
                for (long p : job) {
                    ProcessHandle.of(p).ifPresent(ProcessHandle::destroyForcibly);
                }
                Spawned.await(TIMEOUT, "the job's series to go", () -> {
                    try {
                        return !scrape(http, serve.port()).containsKey("procscope_job_processes" + labels);
                    } catch (Exception e) {
                        throw new AssertionError(e);
                    }
                });
            }
        }
    }
}
