package io.github.procscope.cli;

import io.github.procscope.api.cgroup.Owner;
import io.github.procscope.api.kubernetes.KubernetesNames;
import io.github.procscope.api.kubernetes.KubernetesOptions;
import picocli.CommandLine.Option;

import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Collection;
import java.util.List;
import java.util.Optional;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;

/**
 * {@code --cri-socket} and {@code --pod-resources-socket}, mixed into {@code serve}, {@code ps}, {@code tree},
 * {@code gpu} and {@code watch}: where the Kubernetes names of containers and GPUs come from
 * ({@link KubernetesOptions#defaults()} when not given). Names are looked for only on the live system, or under
 * another root when a socket is given: a fixture tree's containers are not this node's.
 */
final class KubernetesSockets {
    /** The loggers, made when names are first asked for: a command that asks none never loads the logging. */
    private static final class Loggers {
        /** The loggers whose lines (a socket absent, refused or failing) the tool prints as its own. */
        static final Logger[] NAMES = {Logger.getLogger("io.github.procscope.kubernetes"),
                Logger.getLogger("io.github.procscope.api.kubernetes")};
        /** gRPC's own logging: the names report what went wrong with a socket themselves, in one line. */
        static final Logger GRPC = Logger.getLogger("io.grpc");
        static Handler installed;
    }

    @Option(names = "--cri-socket", paramLabel = "PATH",
            description = "The container runtime's CRI socket, for pod names (default: containerd's, then CRI-O's).")
    Path criSocket;

    @Option(names = "--pod-resources-socket", paramLabel = "PATH",
            description = "The kubelet's pod-resources socket, for GPUs' pods (default: "
                    + KubernetesOptions.POD_RESOURCES_SOCKET + ").")
    Path podResourcesSocket;

    /**
     * How long a listing ({@code ps}, {@code tree}, {@code gpu}, {@code watch}) waits for a socket's answer at most:
     * its one question also loads gRPC and connects, which takes more than {@code serve}'s per-scrape deadline
     * (the library's default, 1 s) on a busy node, and a listing has no next scrape to take a late answer.
     */
    static final Duration LISTING_DEADLINE = Duration.ofSeconds(5);

    /** @return the settings these options give, with the library's deadline ({@code serve}) */
    KubernetesOptions options() {
        KubernetesOptions o = KubernetesOptions.defaults();
        if (criSocket != null) {
            o = o.withCriSocket(criSocket);
        }
        if (podResourcesSocket != null) {
            o = o.withPodResourcesSocket(podResourcesSocket);
        }
        return o;
    }

    /**
     * Opens the names for {@code serve}, which labels GPU series with them: on the live system, or with a socket
     * given; else none.
     *
     * @param ctx     the invocation
     * @param command the subcommand, for the lines it prints
     * @return the names (close them), or empty
     */
    Optional<KubernetesNames> open(Context ctx, String command) {
        return open(ctx, command, options());
    }

    private Optional<KubernetesNames> open(Context ctx, String command, KubernetesOptions options) {
        if (!ctx.live() && criSocket == null && podResourcesSocket == null) {
            return Optional.empty();
        }
        logTo(ctx.err(), command, criSocket != null || podResourcesSocket != null);
        return Optional.of(ctx.scope().kubernetesNames(options));
    }

    /**
     * @param ctx     the invocation
     * @param command the subcommand, for the lines it prints
     * @param owners  the owners of what is listed: no socket is asked unless one of them is a Kubernetes pod
     * @return the names of the pods' containers (close them); none when nothing listed runs in a pod
     */
    PodNames names(Context ctx, String command, Collection<Optional<Owner>> owners) {
        boolean pods = owners.stream().anyMatch(o -> o.flatMap(Owner::podUid).isPresent());
        if (!pods) {
            return PodNames.NONE;
        }
        KubernetesOptions options = options().withDeadline(LISTING_DEADLINE);
        String late = "procscope " + command + ": the container runtime socket " + Table.printable(
                criSocket(options).toString()) + " did not answer within " + LISTING_DEADLINE.toSeconds()
                + "s; pods are shown without names";
        PrintStream err = ctx.err();
        return open(ctx, command, options).map(n -> new PodNames(n, late, err::println)).orElse(PodNames.NONE);
    }

    /** @return the runtime socket the names ask: the first of the settings' that exists, else the first */
    private static Path criSocket(KubernetesOptions options) {
        List<Path> all = options.criSockets();
        return all.stream().filter(Files::exists).findFirst().orElse(all.isEmpty() ? Path.of("") : all.get(0));
    }

    /**
     * Prints the names' log lines on {@code err} as the subcommand's, one line each: a socket refused or failing
     * always, one absent (logged as information) only when a socket was given, so that a machine that is no
     * Kubernetes node, with no socket at the default places, hears nothing of Kubernetes.
     */
    private static synchronized void logTo(PrintStream err, String command, boolean given) {
        for (Logger l : Loggers.NAMES) {
            if (Loggers.installed != null) {
                l.removeHandler(Loggers.installed);
            }
        }
        Handler h = new Handler() {
            @Override
            public void publish(LogRecord r) {
                if (r.getLevel().intValue() >= (given ? Level.INFO : Level.WARNING).intValue()) {
                    err.println("procscope " + command + ": " + Table.printable(String.valueOf(r.getMessage())));
                }
            }

            @Override
            public void flush() {
                err.flush();
            }

            @Override
            public void close() {
            }
        };
        for (Logger l : Loggers.NAMES) {
            l.addHandler(h);
            l.setUseParentHandlers(false);
        }
        Loggers.GRPC.setLevel(Level.OFF);
        Loggers.installed = h;
    }
}
