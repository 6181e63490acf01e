package io.github.procscope.kubernetes;

import java.time.Duration;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.LongSupplier;
import java.util.function.Supplier;

/**
 * One kind of answer from a socket, asked again when it is older than the maximum age, with a deadline for the
 * callers who wait for it. A question is asked at most once per maximum age, whatever its outcome; callers
 * wait for a question only until its answer-by time (its start plus the deadline), after which they take the
 * last answer and the question goes on in the background. So a dead socket costs the callers of one maximum
 * age one deadline in all, not one each.
 *
 * <p>Thread-safe.
 *
 * @param <T> the answer
 */
final class Refreshing<T> {
    /** A question in flight, and until when callers wait for it. */
    record Pending<T>(CompletableFuture<T> question, long answerByNanos) {
    }

    private final Supplier<CompletableFuture<T>> ask;
    private final long maxAgeNanos;
    private final long waitNanos;
    private final LongSupplier clock;

    private volatile T last;
    private CompletableFuture<T> inFlight;
    private boolean asked;
    private long askedAt;
    private long answerBy;

    /**
     * @param ask    starts a question; must not block
     * @param maxAge how long an answer (or a failed question) serves before the next question
     * @param wait   how long callers wait for a question, from its start
     * @param clock  {@link System#nanoTime()}, or a test's clock
     */
    Refreshing(Supplier<CompletableFuture<T>> ask, Duration maxAge, Duration wait, LongSupplier clock) {
        this.ask = Objects.requireNonNull(ask, "ask");
        this.maxAgeNanos = maxAge.toNanos();
        this.waitNanos = wait.toNanos();
        this.clock = Objects.requireNonNull(clock, "clock");
    }

    /** @return the last answer, without asking */
    Optional<T> last() {
        return Optional.ofNullable(last);
    }

    /** @return the last answer, after asking again if it is due and waiting for the question until its answer-by time */
    Optional<T> get() {
        return await(kick());
    }

    /**
     * Starts a question if none is in flight and the last one was asked at least the maximum age ago (or none was).
     *
     * @return the question in flight, or null if there is none
     */
    synchronized Pending<T> kick() {
        long now = clock.getAsLong();
        if (inFlight == null && (!asked || now - askedAt >= maxAgeNanos)) {
            asked = true;
            askedAt = now;
            answerBy = now + waitNanos;
            CompletableFuture<T> q;
            try {
                q = Objects.requireNonNull(ask.get(), "question");
            } catch (RuntimeException e) {
                q = CompletableFuture.failedFuture(e);
            }
            inFlight = q;
            CompletableFuture<T> question = q;
            q.whenComplete((v, e) -> answered(question, v));
        }
        return inFlight == null ? null : new Pending<>(inFlight, answerBy);
    }

    /**
     * @param pending a question from {@link #kick()}, or null
     * @return its answer if it comes by its answer-by time, else the last answer
     */
    Optional<T> await(Pending<T> pending) {
        if (pending != null) {
            long remaining = pending.answerByNanos() - clock.getAsLong();
            try {
                T v = remaining > 0 ? pending.question().get(remaining, TimeUnit.NANOSECONDS)
                        : pending.question().getNow(null);
                if (v != null) {
                    return Optional.of(v);
                }
            } catch (TimeoutException | ExecutionException | CancellationException e) {
                // no answer by the deadline: the last one serves
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        return last();
    }

    private synchronized void answered(CompletableFuture<T> question, T value) {
        if (inFlight == question) {
            inFlight = null;
        }
        if (value != null) {
            last = value;
        }
    }
}
