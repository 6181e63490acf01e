package io.github.procscope.examples;

import io.github.procscope.api.Procscope;
import io.github.procscope.api.core.ProcessKey;
import io.github.procscope.api.job.JobSample;
import io.github.procscope.api.job.JobTree;
import io.github.procscope.api.job.JobTreeOptions;
import io.github.procscope.api.signals.StopOptions;
import io.github.procscope.api.signals.StopReport;

import java.io.IOException;
import java.io.PrintStream;
import java.time.Duration;
import java.util.List;

/**
 * Launches a command as a job, watches its process tree with a {@link JobTree} (how many processes, their
 * resident memory in total, who joined and who left; each refresh reads only the job's own processes) a few
 * times, then stops the whole tree gracefully (TERM, a grace period, KILL) and prints what
 * happened to each process.
 *
 * <p>Run: {@code java -cp ... io.github.procscope.examples.WatchAndStopJob sh -c 'sleep 60 & sleep 60 & wait'}.
 */
public final class WatchAndStopJob {
    private WatchAndStopJob() {
    }

    /**
     * @param args the command to launch and its arguments
     * @throws IOException          if the command cannot be started
     * @throws InterruptedException if interrupted while watching
     */
    public static void main(String[] args) throws IOException, InterruptedException {
        if (args.length == 0) {
            System.err.println("usage: WatchAndStopJob COMMAND [ARG...]");
            System.exit(2);
        }
        StopReport report = run(List.of(args), 3, Duration.ofMillis(300), Duration.ofSeconds(2), System.out);
        System.exit(report.allGone() ? 0 : 1);
    }

    /**
     * @param command  the command and its arguments
     * @param samples  how many times to look at the tree
     * @param interval the time between two looks
     * @param grace    how long the tree has to end after TERM before it is KILLed
     * @param out      where to print
     * @return the report of the stop
     * @throws IOException          if the command cannot be started
     * @throws InterruptedException if interrupted while watching
     */
    public static StopReport run(List<String> command, int samples, Duration interval, Duration grace,
                                 PrintStream out) throws IOException, InterruptedException {
        Procscope host = Procscope.system();
        Process job = new ProcessBuilder(command).inheritIO().start();
        ProcessKey root = host.processes().key(job.pid());
        JobTree tree = host.jobTree(root, JobTreeOptions.basic());
        for (int i = 0; i < samples; i++) {
            Thread.sleep(interval.toMillis());
            JobSample sample = tree.refresh();
            out.printf("job %d: %d process(es), %,d bytes resident, %d joined, %d left%n", root.pid(),
                    sample.members().size(), sample.rssBytes(), sample.joined().size(), sample.left().size());
        }
        StopReport report = host.signals().stopTree(job, StopOptions.defaults().withGracePeriod(grace));
        for (StopReport.StoppedProcess p : report.processes()) {
            out.printf("%d %s: %s after %d ms%n", p.pid(), p.comm(), p.ending(), p.after().toMillis());
        }
        out.println(report.allGone() ? "all gone" : "still alive: " + report.survivors());
        return report;
    }
}
