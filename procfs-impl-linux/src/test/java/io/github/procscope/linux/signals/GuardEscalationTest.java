package io.github.procscope.linux.signals;

import io.github.procscope.testing.Commands;
import io.github.procscope.testing.Spawned;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A guarded program blocked before its next step boundary (opening a FIFO no one writes) ends on the second
 * TERM, and on the deadline after the first, with 143 and its shutdown hooks run; with escalation off it
 * stays blocked. Arrivals are ordered as the JVM dispatched them, not as their handler threads ran (a
 * second signal sent once the first one's handler thread exists must come second).
 */
class GuardEscalationTest {
    private static final Duration TIMEOUT = Duration.ofSeconds(60);
    private final Spawned spawned = new Spawned();

    @TempDir
    Path dir;

    @AfterEach
    void end() {
        spawned.close();
    }

    private Process blocked(String mode) throws Exception {
        Path fifo = dir.resolve("fifo-" + mode.replace('=', '-'));
        Commands.run("mkfifo", fifo.toString());
        Process p = spawned.startJava(List.of(), BlockedGuardedMain.class, fifo.toString(), mode);
        assertEquals("ready", Spawned.readLine(p, TIMEOUT));
        Thread.sleep(300); // into open(2) on the FIFO
        return p;
    }

    private static void term(Process p) throws Exception {
        Commands.run("kill", "-TERM", Long.toString(p.pid()));
    }

    private static List<String> rest(Process p) {
        List<String> lines = new ArrayList<>();
        try {
            while (true) {
                lines.add(Spawned.readLine(p, TIMEOUT));
            }
        } catch (AssertionError | RuntimeException e) {
            return lines; // end of output
        }
    }

    @Test
    void aBlockedGuardedProgramEndsOnTheSecondTerm() throws Exception {
        Process p = blocked("second");
        term(p);
        assertEquals("request TERM", Spawned.readLine(p, TIMEOUT));
        assertFalse(p.waitFor(1, TimeUnit.SECONDS), "one TERM is a request: the program may still checkpoint");
        term(p);
        assertTrue(p.waitFor(30, TimeUnit.SECONDS), "the second TERM ends it");
        assertEquals(143, p.exitValue());
        List<String> rest = rest(p);
        assertTrue(rest.contains("hook ran"), rest.toString());
    }

    @Test
    void aBlockedGuardedProgramEndsOnTheDeadlineAfterTheFirstTerm() throws Exception {
        Process p = blocked("deadline=800");
        long t0 = System.nanoTime();
        term(p);
        assertTrue(p.waitFor(30, TimeUnit.SECONDS), "the deadline ends it");
        long ms = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0);
        assertTrue(ms >= 700, "not before the deadline: " + ms + " ms");
        assertEquals(143, p.exitValue());
        List<String> rest = rest(p);
        assertTrue(rest.contains("request TERM") && rest.contains("hook ran"), rest.toString());
    }

    @Test
    void withEscalationOffRepeatsAreOnlyRecorded() throws Exception {
        Process p = blocked("none");
        term(p);
        // The second only after the first was seen: two TERMs sent at once may be one pending signal (standard
        // signals do not queue), which the program can only record once.
        assertEquals("request TERM", Spawned.readLine(p, TIMEOUT));
        term(p);
        assertEquals("request TERM", Spawned.readLine(p, TIMEOUT));
        assertFalse(p.waitFor(2, TimeUnit.SECONDS), "still blocked, as asked");
    }

    @Test
    void differentSignalsDoNotEscalate() throws Exception {
        Process p = blocked("second");
        Commands.run("kill", "-USR1", Long.toString(p.pid()));
        assertEquals("request USR1", Spawned.readLine(p, TIMEOUT));
        term(p);
        assertEquals("request TERM", Spawned.readLine(p, TIMEOUT));
        assertFalse(p.waitFor(1, TimeUnit.SECONDS), "USR1 then TERM is no repeat");
        term(p);
        assertTrue(p.waitFor(30, TimeUnit.SECONDS));
        assertEquals(143, p.exitValue());
    }

    @Test
    void theFirstRequestIsTheFirstToArriveNotTheFirstHandlerToRun() throws Exception {
        Process p = spawned.startJava(List.of(), GuardOrderProbe.class, "40");
        List<String> lines = new ArrayList<>();
        String line;
        do {
            line = Spawned.readLine(p, Duration.ofSeconds(120));
            lines.add(line);
        } while (!line.startsWith("rounds "));
        assertEquals("rounds 40 wrong 0", line, lines.toString());
        System.out.println("GuardEscalationTest order: " + line);
    }

    @Test
    void theFirstRequestFollowsArrivalEvenWhenTheFirstHandlerIsHeldBack() throws Exception {
        Process p = spawned.startJava(List.of(), GuardArrivalOrderProbe.class, "300");
        List<String> lines = new ArrayList<>();
        String line;
        do {
            line = Spawned.readLine(p, Duration.ofSeconds(120));
            lines.add(line);
        } while (!line.startsWith("rounds "));
        String[] f = line.split(" ");
        assertEquals("rounds 300 wrong 0", String.join(" ", f[0], f[1], f[2], f[3]), lines.toString());
        // The probe did hold USR1's handler back: in these rounds TERM's handler ran first, and a guard that
        // reported the order handlers ran would have named TERM. HotSpot 17 lets the later waiter in first in
        // most rounds, so there the inversion must have happened; later JDKs hand a contended monitor over
        // differently (from one round in ten to none here, depending on the machine), so there a run without
        // any inverted round proves nothing and is reported as skipped, not passed.
        boolean inverted = Integer.parseInt(f[5]) > 0;
        if (Runtime.version().feature() <= 17) {
            assertTrue(inverted, "no round had the handlers run in the inverted order: " + line);
        } else {
            org.junit.jupiter.api.Assumptions.assumeTrue(inverted, "this JVM never let TERM's handler in first: "
                    + line);
        }
        System.out.println("GuardEscalationTest held-back order: " + line);
    }
}
