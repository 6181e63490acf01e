package io.github.procscope.linux.signals;

import io.github.procscope.api.Procscope;
import io.github.procscope.api.core.ProcessKey;
import io.github.procscope.api.job.ForwardedSignal;
import io.github.procscope.api.job.Job;
import io.github.procscope.api.job.JobEvent;
import io.github.procscope.api.job.JobReport;
import io.github.procscope.api.job.JobSpec;
import io.github.procscope.api.job.JobTree;
import io.github.procscope.api.job.JobTreeOptions;
import io.github.procscope.api.process.Facet;
import io.github.procscope.api.process.ProcessInfo;
import io.github.procscope.api.process.ProcessSnapshot;
import io.github.procscope.api.process.ProcessStatus;
import io.github.procscope.api.process.ProcessTable;
import io.github.procscope.api.process.ThreadInfo;
import io.github.procscope.api.signals.SendResult;
import io.github.procscope.api.signals.Signal;
import io.github.procscope.api.signals.Signals;
import io.github.procscope.api.signals.StopOptions;
import io.github.procscope.api.signals.StopReport;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStreamWriter;
import java.io.UncheckedIOException;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Set;

/**
 * Runs as PID 1 of a PID namespace of its own ({@code unshare --pid --fork --mount-proc}) and drives the
 * {@code same_tick_reuse} helper, which puts a newcomer on a pid just freed, mostly within the same clock tick, so
 * that (pid, start tick) cannot tell the two apart. Arguments: the helper, the trials per mode, and the modes:
 * <ul>
 *   <li>{@code send}, {@code stop}, {@code tree}: an old process's key is read with {@code ProcessTable.key(pid)}
 *       of the front door while it runs, then it is killed and reaped and a newcomer takes its pid; then the key
 *       is used: {@code Signals.send} (TERM), {@code stop} or {@code stopTree} (no grace period). Nothing may
 *       reach the newcomer, and a stop's report must list the old process, by its key, as {@code GONE}, and
 *       nothing else (the newcomer's name, {@code newcomer}, nowhere in it).</li>
 *   <li>{@code newtree}: as {@code tree}, but the newcomer has a child of its own: neither may get anything.</li>
 *   <li>{@code member}: a tree, a root and its child, is stopped ({@code stopTree} with the root's key) by a
 *       signal sender whose process table, right after the stop's first scan, has the child killed and reaped and
 *       a newcomer (not in the tree) put on the child's pid (no grace period). The scan saw the child; the newcomer
 *       must get nothing, and the report must list the root (ended by TERM or KILL) and nothing else.</li>
 *   <li>{@code job}: a job ({@code JobSupervisor.start}) whose shell forks a member when told to; the job forwards
 *       WINCH (ignored by all), and so samples its processes and sees the member; the member is killed, reaped by
 *       the shell (which then becomes the job's last process) and a newcomer (not in the job) put on its pid, all
 *       mostly within the member's clock tick. Then {@code Job.forward(TERM)}: the job ends, and its supervisor ends
 *       the stragglers. The newcomer must get nothing, TERM must reach the leader alone, and the report must name the
 *       newcomer nowhere (no straggler, no event). A trial counts as reused only if the report shows that the job
 *       saw the member. It runs a fifth of the trials of the other modes (a job costs more).</li>
 * </ul>
 * For each mode it prints {@code mode M trials N reused R sameTicks S delivered D wrongReports W newcomerHits H
 * exactKeys E millis T}: R trials put the newcomer on the pid, S of them within the same tick, D actions reported
 * something delivered, W reports broke the rule above, H newcomers were reached by a signal (the helper's own
 * check), T the milliseconds the mode took. A few lines before it describe the first failures.
 */
public final class SameTickReuseProbe {
    private static final int BATCH = 50;
    private static final int SHOWN = 5;

    private final BufferedReader in;
    private final Writer out;

    private SameTickReuseProbe(Process helper) {
        this.in = new BufferedReader(new InputStreamReader(helper.getInputStream(), StandardCharsets.UTF_8));
        this.out = new OutputStreamWriter(helper.getOutputStream(), StandardCharsets.UTF_8);
    }

    public static void main(String[] args) throws Exception {
        int trials = Integer.parseInt(args[1]);
        Process helper = new ProcessBuilder(args[0]).redirectError(ProcessBuilder.Redirect.INHERIT).start();
        SameTickReuseProbe probe = new SameTickReuseProbe(helper);
        Procscope scope = Procscope.system();
        for (String mode : args[2].split(",")) {
            probe.run(mode, trials, scope);
        }
        probe.out.close();
        helper.waitFor();
        System.out.println("done");
        System.out.flush();
    }

    private int reused;
    private int sameTicks;
    private int delivered;
    private int wrong;
    private int hits;
    private boolean exact = true;
    /** The FIFO through which a job's shell is told to fork its member. */
    private Path fifo;

    private void run(String mode, int trials, Procscope scope) throws IOException {
        reused = 0;
        sameTicks = 0;
        delivered = 0;
        wrong = 0;
        hits = 0;
        exact = true;
        ProcessTable table = scope.processes();
        Signals signals = scope.signals();
        long start = System.nanoTime();
        for (int i = 0; i < trials; i++) {
            if (mode.equals("job")) {
                if (i % 5 == 0) {
                    job(scope);
                }
            } else if (mode.equals("member")) {
                member(table);
            } else {
                oldKey(mode, table, signals);
            }
            if ((i + 1) % BATCH == 0 || i + 1 == trials) {
                check(mode);
            }
        }
        long millis = (System.nanoTime() - start) / 1_000_000;
        System.out.println("mode " + mode + " trials " + (mode.equals("job") ? (trials + 4) / 5 : trials) + " reused " + reused + " sameTicks " + sameTicks
                + " delivered " + delivered + " wrongReports " + wrong + " newcomerHits " + hits + " exactKeys "
                + exact + " millis " + millis);
        System.out.flush();
    }

    /** One trial of send, stop or tree: the old process's key used after a newcomer took its pid. */
    private void oldKey(String mode, ProcessTable table, Signals signals) throws IOException {
        long a = pidOf(ask("a"), "A");
        ProcessKey key = table.key(a);
        exact &= key.pidfsInode().isPresent();
        String[] newcomer = ask(mode.equals("newtree") ? "n" : "r").split(" ");
        if (!newcomer[0].equals("B")) {
            throw new IllegalStateException("expected B, got " + String.join(" ", newcomer));
        }
        reuse(a, Long.parseLong(newcomer[1]), key, table);
        switch (mode) {
            case "send" -> {
                SendResult r = signals.send(key, Signal.TERM);
                if (r.delivered()) {
                    delivered++;
                }
                if (r.outcome() != SendResult.Outcome.PID_REUSED && r.outcome() != SendResult.Outcome.NO_SUCH_PROCESS) {
                    wrong(mode, key + ": " + r);
                }
            }
            case "stop", "tree", "newtree" -> {
                StopOptions options = StopOptions.defaults().withGracePeriod(Duration.ZERO)
                        .withKillWait(Duration.ofSeconds(5));
                StopReport r = mode.equals("stop") ? signals.stop(key, options) : signals.stopTree(key, options);
                if (r.processes().stream().anyMatch(p -> p.ending() != StopReport.Ending.GONE)) {
                    delivered++;
                }
                boolean right = r.processes().size() == 1 && r.processes().get(0).key().equals(key)
                        && r.processes().get(0).ending() == StopReport.Ending.GONE
                        && !r.toString().contains("newcomer");
                if (!right) {
                    wrong(mode, key + ": " + r);
                }
            }
            default -> throw new IllegalArgumentException("unknown mode " + mode);
        }
    }

    /** One trial of job: a job's member replaced by a newcomer before the job forwards TERM and ends its stragglers. */
    private void job(Procscope scope) throws IOException {
        if (fifo == null) {
            Path dir = Files.createTempDirectory("same-tick-job");
            fifo = dir.resolve("go");
            try {
                if (new ProcessBuilder("mkfifo", fifo.toString()).inheritIO().start().waitFor() != 0) {
                    throw new IllegalStateException("mkfifo " + fifo + " failed");
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException(e);
            }
        }
        // The shell forks its member when told to through the FIFO, so that the member can be seen by the job,
        // killed and replaced all within the clock tick it started in.
        Job job = scope.jobs().start(JobSpec.of("sh", "-c", "read x < \"$0\"; sleep 1000 & wait; exec sleep 1000",
                        fifo.toString()).withForwardedSignals(List.of()).withSampleInterval(Duration.ofSeconds(10))
                .withGrace(Duration.ofSeconds(5)));
        long leader = job.leader().pid();
        ProcessTable table = scope.processes();
        try (Writer go = Files.newBufferedWriter(fifo)) {
            go.write("go\n");
        }
        ProcessInfo found = null;
        long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
        while (found == null) {
            for (ProcessInfo p : table.snapshot().processes()) {
                if (p.ppid() == leader) {
                    found = p;
                }
            }
            if (System.nanoTime() - deadline > 0) {
                throw new IllegalStateException("the job's member did not start: " + job);
            }
        }
        ProcessInfo member = found;
        job.forward(Signal.WINCH); // ignored by all; the job samples its processes, and so sees the member
        long newcomer = pidOf(ask("k " + member.pid()), "B");
        boolean sameTick = newcomer == member.pid() && table.find(newcomer)
                .map(p -> p.startTimeTicks() == member.startTimeTicks()).orElse(false);
        job.forward(Signal.TERM);
        JobReport r;
        try {
            r = job.await(Duration.ofSeconds(60)).orElseThrow(() -> new IllegalStateException("the job did not end"));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
        long memberPid = member.pid();
        boolean seen = r.events().stream().anyMatch(e -> e.kind() == JobEvent.Kind.STARTED
                && e.process().pid() == memberPid && e.process().startTimeTicks() == member.startTimeTicks());
        if (newcomer == memberPid && seen) {
            reused++;
            if (sameTick) {
                sameTicks++;
            }
        }
        exact &= job.leader().pidfsInode().isPresent();
        boolean named = r.stragglers().stream().anyMatch(s -> s.process().pid() == newcomer
                || s.comm().equals("newcomer")) || r.events().stream().anyMatch(e -> e.comm().equals("newcomer"));
        if (named) {
            delivered++;
        }
        List<ForwardedSignal> fwd = r.forwardedSignals();
        if (named || fwd.size() != 2 || fwd.get(1).signal() != Signal.TERM || fwd.get(1).processes() != 1) {
            wrong("job", "member " + member.key() + ", newcomer " + newcomer + ": forwarded " + fwd
                    + ", stragglers " + r.stragglers() + ", events " + r.events());
        }
    }

    /** One trial of member: a tree's child replaced by a newcomer between the stop's first scan and its signals. */
    private void member(ProcessTable table) throws IOException {
        String[] t = ask("t").split(" ");
        if (!t[0].equals("T")) {
            throw new IllegalStateException("expected T, got " + String.join(" ", t));
        }
        long root = Long.parseLong(t[1]);
        long child = Long.parseLong(t[2]);
        ProcessKey rootKey = table.key(root);
        ProcessKey childKey = table.key(child);
        exact &= rootKey.pidfsInode().isPresent();
        long[] newcomer = new long[1];
        ProcessTable injecting = new AfterFirstSnapshot(table, () -> {
            try {
                newcomer[0] = pidOf(ask("u"), "B");
                reuse(child, newcomer[0], childKey, table);
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        });
        StopReport r = LinuxSignals.using(injecting).stopTree(rootKey, StopOptions.defaults()
                .withGracePeriod(Duration.ZERO).withKillWait(Duration.ofSeconds(5)));
        if (newcomer[0] == 0) {
            throw new IllegalStateException("the stop took no snapshot: " + r);
        }
        if (r.find(newcomer[0]).isPresent() || r.toString().contains("newcomer")) {
            delivered++;
        }
        boolean right = r.processes().size() == 1 && r.processes().get(0).key().pid() == root
                && r.processes().get(0).key().startTimeTicks() == rootKey.startTimeTicks()
                && (r.processes().get(0).ending() == StopReport.Ending.TERM
                || r.processes().get(0).ending() == StopReport.Ending.KILL) && !r.toString().contains("newcomer");
        if (!right) {
            wrong("member", "root " + rootKey + ", child " + childKey + ", newcomer " + newcomer[0] + ": " + r);
        }
    }

    private void reuse(long old, long newcomer, ProcessKey oldKey, ProcessTable table) {
        if (newcomer != old) {
            return;
        }
        reused++;
        if (table.find(newcomer).map(p -> p.startTimeTicks() == oldKey.startTimeTicks()).orElse(false)) {
            sameTicks++;
        }
    }

    private void wrong(String mode, String what) {
        if (wrong++ < SHOWN) {
            System.out.println(mode + " wrong: " + what.replace(System.lineSeparator(), " | "));
        }
    }

    /** Has the helper check the newcomers since the last check; counts those a signal reached. */
    private void check(String mode) throws IOException {
        out.write("c\n");
        out.flush();
        while (true) {
            String line = in.readLine();
            if (line == null || line.startsWith("error")) {
                throw new IllegalStateException("helper: " + line);
            }
            if (line.startsWith("checked ")) {
                return;
            }
            if (line.startsWith("hit ")) {
                if (hits++ < SHOWN) {
                    System.out.println(mode + " newcomer " + line);
                }
            }
        }
    }

    private String ask(String command) throws IOException {
        out.write(command + "\n");
        out.flush();
        String line = in.readLine();
        if (line == null || line.startsWith("error")) {
            throw new IllegalStateException("helper: " + line);
        }
        return line;
    }

    private static long pidOf(String line, String tag) {
        if (!line.startsWith(tag + " ")) {
            throw new IllegalStateException("expected " + tag + ", got " + line);
        }
        return Long.parseLong(line.substring(tag.length() + 1));
    }

    /** A process table that runs an action once, right after the first snapshot it takes. */
    private static final class AfterFirstSnapshot implements ProcessTable {
        private final ProcessTable table;
        private Runnable action;

        AfterFirstSnapshot(ProcessTable table, Runnable action) {
            this.table = table;
            this.action = action;
        }

        @Override
        public ProcessSnapshot snapshot(Set<Facet> facets) {
            ProcessSnapshot s = table.snapshot(facets);
            Runnable a = action;
            action = null;
            if (a != null) {
                a.run();
            }
            return s;
        }

        @Override
        public ProcessInfo process(long pid, Set<Facet> facets) {
            return table.process(pid, facets);
        }

        @Override
        public ProcessKey key(long pid) {
            return table.key(pid);
        }

        @Override
        public ProcessStatus status(long pid) {
            return table.status(pid);
        }

        @Override
        public List<String> cmdline(long pid) {
            return table.cmdline(pid);
        }

        @Override
        public List<ThreadInfo> threads(long pid, Set<Facet> facets) {
            return table.threads(pid, facets);
        }

        @Override
        public Instant bootTime() {
            return table.bootTime();
        }

        @Override
        public Duration uptime() {
            return table.uptime();
        }

        @Override
        public long clockTicksPerSecond() {
            return table.clockTicksPerSecond();
        }

        @Override
        public long pageSizeBytes() {
            return table.pageSizeBytes();
        }

    }
}
