package io.github.procscope.examples;

import io.github.procscope.api.Procscope;
import io.github.procscope.api.ProcessInfo;
import io.github.procscope.api.ProcessKey;
import io.github.procscope.api.ProcessSnapshot;
import io.github.procscope.api.ProcessTable;
import io.github.procscope.api.ProcessTree;
import io.github.procscope.api.signals.Signals;
import io.github.procscope.api.signals.StopOptions;
import io.github.procscope.api.signals.StopReport;

import java.io.IOException;
import java.io.PrintStream;
import java.time.Duration;
import java.util.List;

/**
 * Launches a command as a job, watches its process tree (how many processes, their resident memory in
 * total) a few times, then stops the whole tree gracefully (TERM, a grace period, KILL) and prints what
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
        ProcessTable table = Procscope.system().processes();
        Signals signals = Procscope.system().signals();
        Process job = new ProcessBuilder(command).inheritIO().start();
        ProcessKey root = table.key(job.pid());
        for (int i = 0; i < samples; i++) {
            Thread.sleep(interval.toMillis());
            ProcessSnapshot snapshot = table.snapshot();
            ProcessTree tree = snapshot.tree();
            List<ProcessInfo> members = tree.descendants(root.pid());
            long rss = tree.subtreeRssBytes(root.pid());
            out.printf("job %d: %d process(es), %,d bytes resident%n", root.pid(), members.size() + 1, rss);
        }
        StopReport report = signals.stopTree(job, StopOptions.defaults().withGracePeriod(grace));
        for (StopReport.StoppedProcess p : report.processes()) {
            out.printf("%d %s: %s after %d ms%n", p.pid(), p.comm(), p.ending(), p.after().toMillis());
        }
        out.println(report.allGone() ? "all gone" : "still alive: " + report.survivors());
        return report;
    }
}
