package io.github.procscope.linux.sys;

import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.quicktheories.QuickTheory.qt;
import static org.quicktheories.generators.SourceDSL.integers;
import static org.quicktheories.generators.SourceDSL.lists;

/**
 * {@link ByteScan} answers what the obvious one-byte loop answers, for every start and end of generated arrays
 * made mostly of the bytes it looks for and their neighbours (so that every position within a word, the words'
 * borrows and the tail after the last whole word are met), and of bytes with the high bit set.
 */
class ByteScanTest {
    /** The bytes the arrays are made of: the searched ones, bytes one apart from them, and high ones. */
    private static final byte[] ALPHABET = {'\n', ':', ' ', '\t', 0x0b, '9', ';', '!', 0x1f, 0, 1, (byte) 0x80,
        (byte) 0x8a, (byte) 0xa0, (byte) 0xff, 'a'};

    private static int newline(byte[] b, int from, int to) {
        int p = from;
        while (p < to && b[p] != '\n') {
            p++;
        }
        return p;
    }

    private static int colonOrNewline(byte[] b, int from, int to) {
        int p = from;
        while (p < to && b[p] != '\n' && b[p] != ':') {
            p++;
        }
        return p;
    }

    private static int pastBlanks(byte[] b, int from, int to) {
        int p = from;
        while (p < to && (b[p] == ' ' || b[p] == '\t')) {
            p++;
        }
        return p;
    }

    private static void agreeEverywhere(byte[] b) {
        for (int from = 0; from <= b.length; from++) {
            for (int to = from; to <= b.length; to++) {
                String at = "from " + from + " to " + to + " of " + java.util.Arrays.toString(b);
                assertEquals(newline(b, from, to), ByteScan.newline(b, from, to), "newline " + at);
                assertEquals(colonOrNewline(b, from, to), ByteScan.colonOrNewline(b, from, to), "colon " + at);
                assertEquals(pastBlanks(b, from, to), ByteScan.pastBlanks(b, from, to), "blanks " + at);
            }
        }
    }

    @Test
    void generatedArraysAgreeWithTheByteLoopAtEveryStartAndEnd() {
        qt().withExamples(400).forAll(lists().of(integers().between(0, ALPHABET.length - 1)).ofSizeBetween(0, 40))
                .checkAssert(picks -> {
                    byte[] b = new byte[picks.size()];
                    for (int i = 0; i < b.length; i++) {
                        b[i] = ALPHABET[picks.get(i)];
                    }
                    agreeEverywhere(b);
                });
    }

    @Test
    void runsOfOneByteAgreeAtEveryLength() {
        for (byte fill : new byte[] {' ', '\t', 'a', '\n', ':'}) {
            for (int n = 0; n <= 33; n++) {
                byte[] b = new byte[n];
                java.util.Arrays.fill(b, fill);
                agreeEverywhere(b);
                if (n > 0) {
                    b[n - 1] = 'x'; // the one other byte last, in the tail or in the last whole word
                    agreeEverywhere(b);
                }
            }
        }
    }

    @Test
    void kernelLinesAreScannedAsTheyRead() {
        byte[] status = "Name:\tsleep\nUmask:\t0022\nSigQ:\t0/31503\nVmSwap:\t       0 kB\n"
                .getBytes(StandardCharsets.US_ASCII);
        assertEquals(4, ByteScan.colonOrNewline(status, 0, status.length));
        assertEquals(11, ByteScan.newline(status, 0, status.length));
        int swap = new String(status, StandardCharsets.US_ASCII).indexOf("VmSwap:") + 7;
        assertEquals(swap + 8, ByteScan.pastBlanks(status, swap, status.length), "a tab, then seven blanks");
        byte[] limits = "Max open files            1024                 1048576              files     \n"
                .getBytes(StandardCharsets.US_ASCII);
        assertEquals(26, ByteScan.pastBlanks(limits, 14, limits.length));
        assertEquals(limits.length - 1, ByteScan.newline(limits, 0, limits.length));
    }
}
