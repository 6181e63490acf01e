package io.github.procscope.linux.parse;

import io.github.procscope.api.core.ProcfsParseException;
import org.junit.jupiter.api.Test;

import java.nio.file.Path;
import java.util.OptionalLong;

import static io.github.procscope.testing.Fixtures.ascii;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.quicktheories.QuickTheory.qt;
import static org.quicktheories.generators.SourceDSL.longs;

class ValueFileParserTest {
    private static final Path SOURCE = Path.of("/sys/fs/cgroup/memory.max");

    private static OptionalLong limit(String s) {
        byte[] b = ascii(s);
        return ValueFileParser.limit(SOURCE, b, b.length);
    }

    @Test
    void maxMeansNoLimit() {
        assertEquals(OptionalLong.empty(), limit("max\n"));
        assertEquals(OptionalLong.of(536870912), limit("536870912\n"));
    }

    @Test
    void cgroupV1UnlimitedValueMeansNoLimitWhateverThePageSize() {
        assertEquals(OptionalLong.empty(), limit("9223372036854771712\n"), "4 KiB pages");
        assertEquals(OptionalLong.empty(), limit("9223372036854710272\n"), "64 KiB pages");
        assertEquals(OptionalLong.of(1L << 62), limit((1L << 62) + "\n"));
    }

    @Test
    void malformedValuesFail() {
        for (String s : new String[] {"", "maxi\n", "12 kB\n", "-1\n", "1\n2\n", "ma\n"}) {
            byte[] b = ascii(s);
            assertThrows(ProcfsParseException.class, () -> ValueFileParser.limit(SOURCE, b, b.length), s);
        }
        byte[] max = ascii("max\n");
        assertThrows(ProcfsParseException.class, () -> ValueFileParser.number(SOURCE, max, max.length));
    }

    @Test
    void numbersRoundTrip() {
        qt().forAll(longs().between(0, ValueFileParser.V1_UNLIMITED_FLOOR - 1)).checkAssert(v -> {
            byte[] b = ascii(v + "\n");
            assertEquals((long) v, ValueFileParser.number(SOURCE, b, b.length));
            assertEquals(OptionalLong.of(v), ValueFileParser.limit(SOURCE, b, b.length));
        });
    }
}
