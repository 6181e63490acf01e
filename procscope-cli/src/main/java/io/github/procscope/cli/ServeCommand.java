package io.github.procscope.cli;

import io.github.procscope.api.diagnose.DoctorOptions;
import io.github.procscope.api.kubernetes.KubernetesNames;
import io.github.procscope.metrics.ExporterOptions;
import io.github.procscope.metrics.ListenAddress;
import io.github.procscope.metrics.MetricsServer;
import io.github.procscope.metrics.MetricsSources;
import io.github.procscope.metrics.ProcessGrouper;
import io.github.procscope.metrics.ProcscopeCollector;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParentCommand;

import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;

/** {@code procscope serve}: a Prometheus endpoint for this machine's processes, GPUs and findings. */
@Command(name = "serve", mixinStandardHelpOptions = true, sortOptions = false,
        description = {"Serve metrics for Prometheus until stopped.",
                "/metrics (Prometheus text, or OpenMetrics when asked for) and /healthz. Process groups use process-exporter's names (namedprocess_namegroup_*),",
                "GPUs dcgm-exporter's (DCGM_FI_DEV_*), and procscope_* the rest. Without a GPU there are no GPU",
                "metrics (one line says why). Listens on the loopback interface unless told otherwise."},
        footer = {"", "Group rules (--group-by, repeatable):",
                "  comm                  one group per command name (the default)",
                "  job                   one group per run: the process procscope run started (or the outermost",
                "                        process below a shell or PID 1), with every process below it",
                "  container             one group per container (its short id); processes in none are left out",
                "  pod                   one group per Kubernetes pod (its UID); processes in none are left out",
                "  slurm                 one group per Slurm job (its id); processes in none are left out",
                "  NAME=REGEX            processes whose command name matches REGEX form group NAME",
                "  NAME=cmdline:REGEX    processes whose command line contains a match of REGEX",
                "", "Examples:", "  procscope serve",
                "  procscope serve --listen 0.0.0.0:9464 --group-by 'trainer=cmdline:train\\.py' --per-pid"})
final class ServeCommand implements Callable<Integer> {
    @ParentCommand
    ProcscopeCli root;

    @Option(names = "--listen", paramLabel = "HOST:PORT",
            description = "Where to listen (default: " + ListenAddress.DEFAULT + "; port 0 picks a free one).")
    String listen = ListenAddress.DEFAULT;

    @Option(names = "--group-by", paramLabel = "RULE",
            description = "How processes form groups: comm, job, container, pod, slurm, NAME=REGEX or NAME=cmdline:REGEX "
                    + "(default: comm).")
    List<String> groupBy = new ArrayList<>();

    @Option(names = "--per-pid", description = "Also report GPU memory per process (one series per GPU process).")
    boolean perPid;

    @Option(names = "--series-cap", paramLabel = "N",
            description = "The most series one scrape returns; the rest are dropped and counted (default: 10000).")
    int seriesCap = ExporterOptions.DEFAULT_SERIES_CAP;

    @Option(names = "--doctor-every", paramLabel = "DURATION", converter = DurationConverter.class,
            description = "Examine the machine for findings at most this often (default: 1m).")
    Duration doctorEvery = Duration.ofMinutes(1);

    @Option(names = "--deleted-files-every", paramLabel = "DURATION", converter = DurationConverter.class,
            description = "Look for deleted-but-open files (every descriptor of every process) at most this often,"
                    + " on a thread of its own; 0 looks within every scrape (default: 1m).")
    Duration deletedFilesEvery = Duration.ofMinutes(1);

    @Option(names = "--group-retention", paramLabel = "DURATION", converter = DurationConverter.class,
            description = "How long a group whose processes are all gone is still reported (at 0) before it is"
                    + " dropped; groups of NAME=REGEX rules always stay (default: 5m).")
    Duration groupRetention = ExporterOptions.DEFAULT_GROUP_RETENTION;

    @Option(names = "--threads", description = "Also report each group's threads by thread name and wait channel,"
            + " as process-exporter's -threads does (namedprocess_namegroup_thread_*, _threads_wchan).")
    boolean threads;

    @Option(names = "--gather-smaps", description = "Also read each grouped process's smaps_rollup for the memory"
            + " types proportionalResident and proportionalSwapped, as process-exporter's -gather-smaps does.")
    boolean gatherSmaps;

    @Option(names = "--no-doctor", description = "No findings, no OOM kills.")
    boolean noDoctor;

    @Option(names = "--no-gpu", description = "Do not look at GPUs.")
    boolean noGpu;

    @Option(names = "--subreaper", split = ",", paramLabel = "PID", converter = PidConverter.class,
            description = "Pids known to be subreapers (for job trees and GPU ghosts).")
    List<Long> subreapers = List.of();

    @Option(names = "--state-dir", paramLabel = "DIR", description = "Where run --detach records jobs, whose trees"
            + " get the procscope_job_* families (default: as for jobs: $PROCSCOPE_STATE_DIR, else"
            + " $XDG_STATE_HOME/procscope/jobs, else ~/.local/state/procscope/jobs).")
    Path stateDir;

    @picocli.CommandLine.Mixin
    KubernetesSockets kubernetes = new KubernetesSockets();

    private static final Set<String> STANDALONE = Set.of("comm", "job", "container", "pod", "slurm");

    @Override
    public Integer call() throws InterruptedException {
        Context ctx = root.context();
        InetSocketAddress address = ListenAddress.parse(listen);
        ProcessGrouper grouper = grouper(groupBy, Set.copyOf(subreapers));
        ExporterOptions options = ExporterOptions.defaults().withGrouper(grouper).withPerPid(perPid)
                .withSeriesCap(seriesCap).withDeletedFilesEvery(deletedFilesEvery).withGroupRetention(groupRetention)
                .withDoctor(doctorEvery, DoctorOptions.defaults().withSampleWindow(Duration.ofSeconds(1))
                        .withSubreapers(Set.copyOf(subreapers)))
                .withThreads(threads).withGatherSmaps(gatherSmaps);
        MetricsSources sources = MetricsSources.of(ctx.procfs()).withOpenFiles(ctx.openFiles())
                .withJobs(() -> JobStore.open(stateDir, false).running());
        if (gatherSmaps) {
            sources = sources.withMemory(ctx.memory());
        }
        if (!noGpu) {
            sources = sources.withGpus(ctx::openGpus);
        }
        if (!noDoctor) {
            sources = sources.withDoctor(ctx.doctor(null, !noGpu));
        }
        // the pod, namespace and container labels of GPU series, and GPU memory per pod: only with GPUs
        Optional<KubernetesNames> names = noGpu ? Optional.empty() : kubernetes.open(ctx, "serve");
        if (names.isPresent()) {
            sources = sources.withKubernetes(names.get());
        }
        try (ProcscopeCollector collector = new ProcscopeCollector(sources, options,
                line -> ctx.err().println(line));
             MetricsServer server = MetricsServer.start(address, collector)) {
            InetSocketAddress at = server.address();
            String bound = ListenAddress.format(at);
            if (!at.getAddress().isLoopbackAddress()) {
                ctx.err().println("procscope serve: warning: listening on " + bound + ", "
                        + (at.getAddress().isAnyLocalAddress() ? "every interface" : "beyond the loopback interface")
                        + ": whoever can reach it can read this machine's process names, command groups and GPU use;"
                        + " --listen " + ListenAddress.DEFAULT + " keeps it local");
            }
            ctx.out().println("procscope serve: listening on http://" + bound + "/metrics");
            new CountDownLatch(1).await();
            return ProcscopeCli.OK;
        } catch (InterruptedException e) {
            return ProcscopeCli.OK;
        } finally {
            names.ifPresent(KubernetesNames::close);
        }
    }

    /**
     * @param rules the {@code --group-by} values
     * @param subreapers pids that end a job tree
     * @return the grouper they describe
     * @throws IllegalArgumentException for an unknown rule, or a grouping that stands alone (comm, job,
     *         container, pod, slurm) mixed with other rules
     */
    static ProcessGrouper grouper(List<String> rules, Set<Long> subreapers) {
        if (rules.isEmpty()) {
            return ProcessGrouper.byCommand();
        }
        if (rules.size() == 1) {
            switch (rules.get(0)) {
                case "comm":
                    return ProcessGrouper.byCommand();
                case "job":
                    return ProcessGrouper.byJobTree(subreapers);
                case "container":
                    return ProcessGrouper.byContainer();
                case "pod":
                    return ProcessGrouper.byPod();
                case "slurm":
                    return ProcessGrouper.bySlurmJob();
                default:
                    break;
            }
        }
        List<ProcessGrouper.Rule> parsed = new ArrayList<>();
        for (String r : rules) {
            if (STANDALONE.contains(r)) {
                throw new IllegalArgumentException("--group-by " + r + " stands alone; it cannot be combined with "
                        + "other rules");
            }
            parsed.add(ProcessGrouper.Rule.parse(r));
        }
        return ProcessGrouper.matching(parsed);
    }
}
