package io.github.procscope.kubernetes;

import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicLong;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;

/** The rules of asking again, on a clock the test moves. */
class RefreshingTest {
    private final AtomicLong now = new AtomicLong(1_000_000_000L);
    private final List<CompletableFuture<String>> questions = new ArrayList<>();
    private final Refreshing<String> answers = new Refreshing<>(() -> {
        CompletableFuture<String> q = new CompletableFuture<>();
        questions.add(q);
        return q;
    }, Duration.ofSeconds(5), Duration.ofSeconds(1), now::get);

    private void advance(Duration d) {
        now.addAndGet(d.toNanos());
    }

    @Test
    void aQuestionIsAskedOnceWhileItIsInFlight() {
        assertNotNull(answers.kick());
        advance(Duration.ofSeconds(30));
        assertNotNull(answers.kick());
        assertEquals(1, questions.size());
    }

    @Test
    void anAnswerServesForTheMaximumAgeThenIsAskedAgain() {
        answers.kick();
        questions.get(0).complete("first");
        assertEquals(Optional.of("first"), answers.get());
        advance(Duration.ofSeconds(4));
        assertNull(answers.kick());
        assertEquals(Optional.of("first"), answers.get());
        assertEquals(1, questions.size());
        advance(Duration.ofSeconds(1));
        assertNotNull(answers.kick());
        assertEquals(2, questions.size());
        questions.get(1).complete("second");
        assertEquals(Optional.of("second"), answers.last());
    }

    @Test
    void aFailedQuestionIsNotAskedAgainBeforeTheMaximumAge() {
        answers.kick();
        questions.get(0).completeExceptionally(new IllegalStateException("refused"));
        assertEquals(Optional.empty(), answers.get());
        advance(Duration.ofSeconds(4));
        assertEquals(Optional.empty(), answers.get());
        assertEquals(1, questions.size());
        advance(Duration.ofSeconds(2));
        answers.get();
        assertEquals(2, questions.size());
    }

    @Test
    void pastItsAnswerByTimeAQuestionIsNotWaitedForAndTheLastAnswerServes() {
        answers.kick();
        questions.get(0).complete("first");
        advance(Duration.ofSeconds(6));
        Refreshing.Pending<String> p = answers.kick();
        assertNotNull(p);
        advance(Duration.ofSeconds(2));
        // the clock says the deadline passed: no wait at all, the last answer
        assertEquals(Optional.of("first"), answers.await(p));
        assertEquals(Optional.of("first"), answers.get());
        assertEquals(2, questions.size());
    }

    @Test
    void anAnswerThatCameIsReturnedEvenBeforeItIsRecorded() {
        Refreshing.Pending<String> p = answers.kick();
        CompletableFuture<String> q = questions.get(0);
        q.complete("now");
        assertEquals(Optional.of("now"), answers.await(p));
    }

    @Test
    void aQuestionThatThrowsWhenAskedIsAFailedQuestion() {
        Refreshing<String> throwing = new Refreshing<>(() -> {
            throw new IllegalStateException("no executor");
        }, Duration.ZERO, Duration.ofSeconds(1), now::get);
        assertEquals(Optional.empty(), throwing.get());
        assertEquals(Optional.empty(), throwing.get());
    }
}
