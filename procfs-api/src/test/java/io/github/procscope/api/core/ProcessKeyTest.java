package io.github.procscope.api.core;

import org.junit.jupiter.api.Test;

import java.util.OptionalLong;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

class ProcessKeyTest {
    private static final ProcessKey LISTED = new ProcessKey(4100, 250_000);
    private static final ProcessKey EXACT = new ProcessKey(4100, 250_000, OptionalLong.of(9001));

    @Test
    void aListingsKeyMatchesTheExactKeyOfItsProcessThoughTheyAreNotEqual() {
        assertNotEquals(LISTED, EXACT);
        assertTrue(LISTED.matches(EXACT));
        assertTrue(EXACT.matches(LISTED));
        assertTrue(EXACT.matches(EXACT));
    }

    @Test
    void aNewcomerWithinTheSameTickMatchesOnlyWhereNoInodeTellsItApart() {
        ProcessKey newcomer = new ProcessKey(4100, 250_000, OptionalLong.of(9002));
        assertFalse(EXACT.matches(newcomer), "the inodes differ");
        assertFalse(newcomer.matches(EXACT));
        assertTrue(LISTED.matches(newcomer), "a (pid, start tick) key cannot tell them apart");
    }

    @Test
    void anotherPidOrStartTimeNeverMatches() {
        assertFalse(EXACT.matches(new ProcessKey(4101, 250_000, OptionalLong.of(9001))));
        assertFalse(EXACT.matches(new ProcessKey(4100, 250_001, OptionalLong.of(9001))));
        assertFalse(LISTED.matches(new ProcessKey(4100, 250_001)));
    }

    @Test
    void printsAsAPersonReadsIt() {
        assertEquals("pid 4100 (started at tick 250000 after boot)", LISTED.toString());
        assertEquals("pid 4100 (started at tick 250000 after boot, pidfs inode 9001)", EXACT.toString());
    }
}
