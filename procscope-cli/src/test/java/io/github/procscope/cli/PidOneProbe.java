package io.github.procscope.cli;

import io.github.procscope.api.Procscope;
import io.github.procscope.api.job.Job;
import io.github.procscope.api.job.JobReport;
import io.github.procscope.api.job.JobSpec;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

/**
 * Run as PID 1 of a PID namespace by {@link PidOneIT}: supervises a job that leaves orphans of both kinds (in
 * the job's session, and in sessions of their own), while this JVM starts {@link ProcessBuilder} children with
 * known exit statuses (some of which leave orphans in this JVM's own process group); then counts the zombies of
 * the namespace. Prints {@code statuses-wrong N}, {@code zombies N} and {@code job N}.
 */
public final class PidOneProbe {
    private PidOneProbe() {
    }

    public static void main(String[] args) throws Exception {
        if (ProcessHandle.current().pid() != 1) {
            System.out.println("not-pid-1 " + ProcessHandle.current().pid());
            System.exit(1);
        }
        String orphans = "for i in $(seq 50); do (sleep 0.3 &); (setsid sleep 0.3 &); done; sleep 0.5";
        Job job = Procscope.system().jobs().start(JobSpec.of("sh", "-c", orphans)
                .withSampleInterval(Duration.ofMillis(50)).withForwardedSignals(List.of()));
        int wrong = 0;
        for (int i = 0; i < 40; i++) {
            int code = 3 + i;
            Process p = new ProcessBuilder("sh", "-c", (i % 2 == 0 ? "(sleep 0.1 &); " : "") + "exit " + code)
                    .redirectErrorStream(true).start();
            if (p.waitFor() != code) {
                wrong++;
            }
        }
        JobReport r = job.await();
        Thread.sleep(4_000); // every orphan has ended, and a lingering zombie has been given its 2 s
        System.out.println("statuses-wrong " + wrong);
        System.out.println("zombies " + zombies());
        System.out.println("job " + r.exit().status().shellStatus());
        System.exit(0);
    }

    static int zombies() throws Exception {
        List<Path> stats = new ArrayList<>();
        try (Stream<Path> s = Files.list(Path.of("/proc"))) {
            s.filter(p -> p.getFileName().toString().matches("\\d+")).forEach(p -> stats.add(p.resolve("stat")));
        }
        int n = 0;
        for (Path stat : stats) {
            try {
                String line = Files.readString(stat);
                if (line.substring(line.lastIndexOf(')') + 2).startsWith("Z")) {
                    n++;
                }
            } catch (java.io.IOException e) {
                // gone meanwhile
            }
        }
        return n;
    }
}
