package io.github.procscope.linux.parse;

import io.github.procscope.testing.Fixtures;

import io.github.procscope.api.core.ProcfsParseException;
import io.github.procscope.api.process.ProcessStat;
import org.junit.jupiter.api.Test;
import org.quicktheories.core.Gen;
import org.quicktheories.generators.SourceDSL;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.quicktheories.QuickTheory.qt;
import static org.quicktheories.generators.SourceDSL.integers;
import static org.quicktheories.generators.SourceDSL.longs;

class StatParserPropertiesTest {
    private static final Path SRC = Path.of("/proc/1/stat");
    private static final String COMM_ALPHABET = "ab ()) (\n\t-_/:学)";

    /** Arbitrary bytes, biased towards the characters a stat line is made of. */
    static Gen<byte[]> statLikeBytes() {
        Gen<Integer> b = SourceDSL.integers().between(0, 40).zip(SourceDSL.integers().between(0, 255), (pick, any) -> {
            String common = "0123456789 ()-\nSRZ";
            return pick < common.length() ? (int) common.charAt(pick) : any;
        });
        return SourceDSL.lists().of(b).ofSizeBetween(0, 400).map(list -> {
            byte[] out = new byte[list.size()];
            for (int i = 0; i < out.length; i++) {
                out[i] = (byte) (int) list.get(i);
            }
            return out;
        });
    }

    @Test
    void truncatedRealLinesRaiseNothingButParseExceptions() {
        byte[] full = Fixtures.bytes("proc/100/stat");
        qt().forAll(integers().between(0, full.length)).checkAssert(n -> {
            try {
                StatParser.parse(SRC, full, n, Fixtures.CONSTANTS);
            } catch (ProcfsParseException expected) {
                // fine
            }
        });
    }

    static Gen<String> comms() {
        return SourceDSL.lists().of(integers().between(0, COMM_ALPHABET.length() - 1))
                .ofSizeBetween(0, 15)
                .map(idx -> {
                    StringBuilder sb = new StringBuilder();
                    idx.forEach(i -> sb.append(COMM_ALPHABET.charAt(i)));
                    return sb.toString();
                });
    }

    @Test
    void generatedStatLinesRoundTrip() {
        Gen<long[]> fields = SourceDSL.lists().of(longs().between(0, Long.MAX_VALUE / 8192))
                .ofSize(52).map(list -> list.stream().mapToLong(Long::longValue).toArray());
        Gen<Integer> signed = integers().between(-40, Integer.MAX_VALUE);
        qt().withExamples(500)
                .forAll(comms(), fields, signed, integers().between(1, 4_194_304))
                .checkAssert((comm, f, s, pid) -> {
                    List<String> parts = new ArrayList<>();
                    // Ids within pid range, priority within -101..39 (the kernel's ranges; others are refused).
                    f[3] %= Integer.MAX_VALUE;
                    f[4] %= Integer.MAX_VALUE;
                    f[5] %= Integer.MAX_VALUE;
                    f[7] %= Integer.MAX_VALUE;
                    f[17] = f[17] % 141 - 101;
                    for (int i = 4; i <= 52; i++) {
                        long v = f[i - 1];
                        if (i == 7 || i == 52) {
                            v = s; // int-sized fields, possibly negative
                        } else if (i == 19) {
                            v = Math.floorMod(s, 40) - 20; // nice
                        } else if (i == 20 || i == 39) {
                            v = Math.abs((long) s); // threads, processor
                        } else if (i == 38) {
                            v = Math.floorMod(s, 257) - 1; // exit_signal (-1 for a thread)
                        } else if (i == 41) {
                            v = Math.floorMod(s, 256); // policy
                        } else if (i == 40) {
                            v = Math.floorMod(s, 100); // rt_priority
                        }
                        parts.add(Long.toString(v));
                    }
                    String line = pid + " (" + comm + ") R " + String.join(" ", parts) + "\n";
                    byte[] b = line.getBytes(StandardCharsets.UTF_8);
                    ProcessStat st = StatParser.parse(SRC, b, b.length, Fixtures.CONSTANTS);
                    assertEquals((long) pid, st.pid());
                    assertEquals(comm, st.comm());
                    assertEquals(f[3], st.ppid());
                    assertEquals(f[4], st.pgrp());
                    assertEquals(f[5], st.session());
                    assertEquals((int) s, st.ttyNr());
                    assertEquals(f[9], st.minorFaults());
                    assertEquals(Fixtures.CONSTANTS.ticks(f[13]), st.userTime());
                    assertEquals(Fixtures.CONSTANTS.ticks(f[14]), st.systemTime());
                    assertEquals(f[17], st.priority());
                    assertEquals(Math.floorMod(s, 40) - 20, st.nice());
                    assertEquals(f[21], st.startTimeTicks());
                    assertEquals(f[22], st.vszBytes());
                    assertEquals(f[23] * 4096, st.rssBytes());
                    assertEquals(Math.floorMod(s, 256), st.policyNumber());
                    assertEquals(f[50] == 0 ? java.util.OptionalLong.empty() : java.util.OptionalLong.of(f[50]), st.envEnd());
                });
    }
}
