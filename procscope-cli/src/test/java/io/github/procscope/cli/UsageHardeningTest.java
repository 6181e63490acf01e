package io.github.procscope.cli;

import org.junit.jupiter.api.Test;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Hostile command lines: pids that are not plain ASCII digits, durations that would overflow or that no
 * one means (a grace beyond 30 days, an interval beyond a year), a zero interval, an unknown option after
 * {@code help}, and {@code -V}. Each bad one is exit status 2 with one line naming the value.
 */
class UsageHardeningTest {

    private static CliRun usage(String... args) {
        CliRun r = CliRun.of(args);
        assertEquals(2, r.status(), String.join(" ", args) + " -> out: " + r.out() + " err: " + r.err());
        assertTrue(r.err().startsWith("procscope"), r.err());
        assertFalse(r.err().contains("\tat "), "no stack trace: " + r.err());
        assertEquals(1, r.err().strip().lines().count(), "one line: " + r.err());
        return r;
    }

    @Test
    void pidsAreAsciiDigitsOnly() {
        for (String pid : List.of(" 42", "42 ", "+7", "\uFF14\uFF12", "\u0664\u0662", "4_2", "0x2a", "1e3", "", "-0")) {
            for (String cmd : List.of("stop", "signals", "threads", "maps", "fds", "watch", "tree")) {
                CliRun r = usage(cmd, "--", pid);
                assertTrue(r.err().contains("'" + pid + "' is not a pid"), cmd + " " + pid + ": " + r.err());
            }
        }
        usage("ps", "--pid", "1,+2");
        CliRun huge = usage("stop", "99999999999999999999999999");
        assertTrue(huge.err().contains("invalid pid 99999999999999999999999999"), huge.err());
    }

    @Test
    void durationsAreAsStrictAsPids() {
        for (String d : List.of(" 5s", "5s ", "5 s", "\t5s", "5s\n", "+5s", "5S", "5Ms", "\uFF15s", "\u0665s", "pt5s",
                "PT5s", "+PT5S", "1e3", "5_0ms", "0x10", "", "s", ".5s", "5.s")) {
            for (List<String> cmd : List.of(List.of("stop", "4194304", "--grace"), List.of("run", "--grace"),
                    List.of("run", "--interval"), List.of("watch", "1", "--interval"), List.of("doctor", "--window"))) {
                List<String> args = new java.util.ArrayList<>(cmd);
                args.add(d);
                if (cmd.get(0).equals("run")) {
                    args.addAll(List.of("--", "true"));
                }
                CliRun r = usage(args.toArray(String[]::new));
                assertTrue(r.err().contains("is not a duration") && r.err().contains("no spaces"), args + ": " + r.err());
            }
        }
        for (String d : List.of("-5s", "-0", "-PT5S", "PT-5S")) {
            CliRun r = usage("stop", "4194304", "--grace", d);
            assertTrue(r.err().contains("'" + d + "' is negative"), d + ": " + r.err());
        }
        DurationConverter any = new DurationConverter();
        assertEquals(java.time.Duration.ofMillis(500), any.convert("500ms"));
        assertEquals(java.time.Duration.ofMillis(1500), any.convert("1.5s"));
        assertEquals(java.time.Duration.ofMinutes(2), any.convert("2m"));
        assertEquals(java.time.Duration.ofHours(1), any.convert("1h"));
        assertEquals(java.time.Duration.ofSeconds(3), any.convert("PT3S"));
        assertEquals(java.time.Duration.ofSeconds(7), any.convert("7"));
    }

    @Test
    void overflowingGraceIsRefusedNamingTheValue() {
        for (String grace : List.of("922337204m", "2562048h", "153722868m", "PT2562048H", "PT9223372036854775807S",
                "P106751991167300D", "PT99999999999999999999H", "31d", "721h", "43201m", "P31D", "2592001")) {
            CliRun r = usage("stop", "4194304", "--grace", grace);
            assertTrue(r.err().contains("'" + grace + "'"), grace + ": " + r.err());
            assertFalse(r.err().contains("overflow"), r.err());
            assertFalse(r.err().contains("negative") && !grace.startsWith("-"), "not called negative: " + r.err());
        }
        CliRun tooLong = usage("stop", "4194304", "--grace", "922337204m");
        assertTrue(tooLong.err().contains("too long") && tooLong.err().contains("30 days"), tooLong.err());
    }

    @Test
    void theLongestGraceIsThirtyDays() {
        DurationConverter grace = new DurationConverter.Grace();
        assertEquals(java.time.Duration.ofDays(30), grace.convert("720h"));
        assertEquals(java.time.Duration.ofDays(30), grace.convert("P30D"));
        assertEquals(java.time.Duration.ofMillis(1500), grace.convert("1.5s"));
        assertEquals(java.time.Duration.ZERO, grace.convert("0"));
    }

    @Test
    void overflowingOrZeroIntervalsAreRefusedInTheUsersTerms() {
        CliRun huge = usage("iostat", "922337204m", "1");
        assertTrue(huge.err().contains("'922337204m' is too long") && huge.err().contains("365 days"), huge.err());
        CliRun zero = usage("iostat", "0");
        assertTrue(zero.err().contains("'0' is too short") && zero.err().contains("10ms"), zero.err());
        assertFalse(zero.err().contains("PT"), "says it in the user's terms: " + zero.err());
        usage("iostat", "5ms", "1");
        usage("iostat", "P400D", "1");
        usage("watch", "1", "--interval", "0");
        usage("watch", "1", "--interval", "PT9223372036854775807S");
        usage("gpu", "--watch", "0s");
        usage("doctor", "--window", "99999999h");
    }

    @Test
    void helpWithAnUnknownOptionIsBadUsage() {
        CliRun r = CliRun.of("help", "--bogus-flag");
        assertEquals(2, r.status(), r.out() + r.err());
        assertTrue(r.err().contains("--bogus-flag"), r.err());
        CliRun ok = CliRun.of("help", "stop");
        assertEquals(0, ok.status(), ok.err());
        assertTrue(ok.out().contains("Usage: procscope stop"), ok.out());
    }

    @Test
    void dashCapitalVPrintsTheVersion() {
        for (String flag : List.of("-V", "--version")) {
            CliRun r = CliRun.of(flag);
            assertEquals(0, r.status(), r.err());
            assertTrue(r.out().matches("procscope \\d+\\.\\d+\\.\\d+(-SNAPSHOT)?\\R"), r.out());
        }
    }
}
