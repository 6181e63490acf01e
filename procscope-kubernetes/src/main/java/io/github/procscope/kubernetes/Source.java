package io.github.procscope.kubernetes;

import io.github.procscope.api.kubernetes.KubernetesOptions;
import io.github.procscope.api.kubernetes.NamesSource.Kind;
import io.github.procscope.api.kubernetes.NamesSource.State;
import io.github.procscope.api.kubernetes.NamesSource;
import io.grpc.ManagedChannel;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;

import java.lang.System.Logger.Level;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.Executor;
import java.util.function.Function;
import java.util.stream.Collectors;

/**
 * One socket that answers one kind of question: which path is used (the first usable one of the configured
 * paths, checked before each question), its channel (made once per path, kept while the path is used), its
 * answers ({@link Refreshing}), its state for {@code sources()}, and a log line each time the state turns bad or
 * recovers.
 *
 * <p>Each question starts on the resolver's background executor (the check, and the first channel's loading of
 * Netty, never run on a caller's thread) and runs with a deadline of {@code backgroundDeadline}.
 *
 * @param <T> the answer
 */
final class Source<T> {
    /** Asks a channel; must not block. */
    interface Question<T> {
        /**
         * @param channel  the channel to the socket
         * @param deadline how long the call may take
         * @return the answer, when it comes
         */
        CompletableFuture<T> ask(ManagedChannel channel, Duration deadline);
    }

    /** A path that was not asked: absent, refused, or no transport. Its state is recorded already. */
    private static final class NotAsked extends RuntimeException {
        private static final long serialVersionUID = 1L;

        NotAsked() {
            super(null, null, false, false);
        }
    }

    private final Kind kind;
    private final String what;
    private final String without;
    private final List<Path> sockets;
    private final Question<T> question;
    private final Function<T, String> describe;
    private final UnixTransport transport;
    private final Executor background;
    private final Duration backgroundDeadline;
    private final int maxMessageBytes;
    private final Path procSelf;
    private final System.Logger log;
    private final Refreshing<T> answers;

    private ManagedChannel channel;
    private Path channelSocket;
    private boolean lastFailed;
    private boolean closed;
    private volatile NamesSource status;
    private State logged = State.NOT_ASKED;
    private Optional<Path> loggedSocket = Optional.empty();

    /**
     * @param kind     which API
     * @param what     the socket in words, for the log ("container runtime socket")
     * @param without  what goes without it, for the log ("containers get no Kubernetes names")
     * @param sockets  the paths to try, in order; empty to ask nothing
     * @param question the question
     * @param describe an answer in words, for {@code sources()}
     * @param settings the transport, the background executor and the limits
     */
    Source(Kind kind, String what, String without, List<Path> sockets, Question<T> question,
           Function<T, String> describe, Settings settings) {
        this.kind = kind;
        this.what = what;
        this.without = without;
        this.sockets = List.copyOf(sockets);
        this.question = question;
        this.describe = describe;
        this.transport = settings.transport();
        this.background = settings.background();
        this.backgroundDeadline = settings.options().backgroundDeadline();
        this.maxMessageBytes = settings.options().maxMessageBytes();
        this.procSelf = settings.procSelf();
        this.log = settings.log();
        this.answers = new Refreshing<>(this::ask, settings.options().maxAge(), settings.options().deadline(),
                System::nanoTime);
        this.status = new NamesSource(kind, Optional.empty(), sockets.isEmpty() ? State.DISABLED : State.NOT_ASKED,
                sockets.isEmpty() ? "no socket configured" : "not asked yet");
    }

    /** What every source of one resolver shares. */
    record Settings(KubernetesOptions options, UnixTransport transport,
                    Executor background, Path procSelf, System.Logger log) {
    }

    /** @return whether a socket is configured */
    boolean enabled() {
        return !sockets.isEmpty();
    }

    /** @return the last answer, without asking */
    Optional<T> last() {
        return answers.last();
    }

    /** @return the question in flight after asking again if due; null if none or nothing is configured */
    Refreshing.Pending<T> kick() {
        return enabled() ? answers.kick() : null;
    }

    /**
     * @param pending from {@link #kick()}
     * @return its answer by its deadline, else the last answer
     */
    Optional<T> await(Refreshing.Pending<T> pending) {
        return answers.await(pending);
    }

    /** @return the last answer, after asking again if it is due */
    Optional<T> get() {
        return await(kick());
    }

    /** @return how the last question went */
    NamesSource status() {
        return status;
    }

    /** Shuts the channel down: calls in flight end as cancelled. */
    synchronized void close() {
        closed = true;
        if (channel != null) {
            channel.shutdownNow();
            channel = null;
        }
    }

    private CompletableFuture<T> ask() {
        return CompletableFuture.supplyAsync(this::connect, background)
                .thenCompose(c -> question.ask(c, backgroundDeadline))
                .whenComplete(this::answered);
    }

    private ManagedChannel connect() {
        int ownUid = SocketCheck.ownUid(procSelf);
        List<SocketCheck.Refused> refused = new ArrayList<>();
        for (Path p : sockets) {
            SocketCheck.Verdict v = SocketCheck.check(p, ownUid);
            if (v instanceof SocketCheck.Usable u) {
                try {
                    return channel(u.socket());
                } catch (UnixTransport.UnavailableException e) {
                    record(State.REFUSED, Optional.of(p), e.getMessage());
                    throw new NotAsked();
                }
            } else if (v instanceof SocketCheck.Refused r) {
                refused.add(r);
            }
        }
        if (!refused.isEmpty()) {
            SocketCheck.Refused r = refused.get(0);
            record(State.REFUSED, Optional.of(r.socket()), r.socket() + " is refused: " + r.reason());
        } else {
            record(State.ABSENT, Optional.empty(), "no socket at "
                    + sockets.stream().map(Path::toString).collect(Collectors.joining(" or ")));
        }
        throw new NotAsked();
    }

    private synchronized ManagedChannel channel(Path socket) {
        if (closed) {
            throw new IllegalStateException("closed");
        }
        if (channel != null && !socket.equals(channelSocket)) {
            channel.shutdownNow();
            channel = null;
        }
        if (channel == null) {
            channel = transport.open(socket, maxMessageBytes);
            channelSocket = socket;
        } else if (lastFailed) {
            // A runtime or kubelet that restarted is found again at once, not after gRPC's reconnect backoff.
            channel.resetConnectBackoff();
        }
        return channel;
    }

    private void answered(T value, Throwable failure) {
        Optional<Path> socket;
        synchronized (this) {
            if (closed) {
                return;
            }
            socket = Optional.ofNullable(channelSocket);
            lastFailed = failure != null;
        }
        if (failure == null) {
            record(State.ANSWERED, socket, describe.apply(value));
            return;
        }
        Throwable cause = failure instanceof CompletionException && failure.getCause() != null
                ? failure.getCause() : failure;
        if (cause instanceof NotAsked) {
            return;
        }
        String why;
        if (cause instanceof StatusRuntimeException s) {
            Status st = s.getStatus();
            why = st.getCode() + (st.getDescription() == null ? "" : ": " + st.getDescription());
        } else {
            why = String.valueOf(cause);
        }
        record(State.FAILING, socket, "no answer from " + socket.map(Path::toString).orElse("the socket") + ": "
                + why);
    }

    private void record(State state, Optional<Path> socket, String detail) {
        String line = null;
        synchronized (this) {
            if (closed) {
                return;
            }
            status = new NamesSource(kind, socket, state, detail);
            boolean bad = state == State.ABSENT || state == State.REFUSED || state == State.FAILING;
            boolean wasBad = logged == State.ABSENT || logged == State.REFUSED || logged == State.FAILING;
            if (bad && (state != logged || !socket.equals(loggedSocket))) {
                line = what + ": " + detail + "; " + without
                        + (state == State.FAILING ? " beyond its last answer" : "");
            } else if (state == State.ANSWERED && wasBad) {
                line = what + " " + socket.map(Path::toString).orElse("") + " answers again: " + detail;
            }
            logged = state;
            loggedSocket = socket;
        }
        if (line != null) {
            log.log(state == State.ANSWERED || state == State.ABSENT ? Level.INFO : Level.WARNING, line);
        }
    }
}
