package io.github.procscope.linux.parse;

import io.github.procscope.testing.Fixtures;

import io.github.procscope.api.core.ProcfsParseException;
import org.junit.jupiter.api.Test;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import static io.github.procscope.testing.Fixtures.ascii;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.quicktheories.QuickTheory.qt;
import static org.quicktheories.generators.SourceDSL.lists;
import static org.quicktheories.generators.SourceDSL.longs;

class MeminfoParserTest {
    private static final Path SOURCE = Path.of("/proc/meminfo");

    private static MeminfoParser.Meminfo parse(String variant) {
        byte[] b = Fixtures.bytes("files/meminfo/" + variant);
        return MeminfoParser.parse(SOURCE, b, b.length);
    }

    @Test
    void kilobyteLinesBecomeBytesAndPageCountsStayCounts() {
        MeminfoParser.Meminfo m = parse("3.10-no-memavailable");
        assertEquals(8061404L * 1024, m.bytes().get("MemTotal"));
        assertEquals(2403596L * 1024, m.bytes().get("Active(file)"));
        assertEquals(34359738367L * 1024, m.bytes().get("VmallocTotal"));
        assertEquals(0L, m.counts().get("HugePages_Total"));
        assertFalse(m.bytes().containsKey("MemAvailable"));
        assertFalse(m.bytes().containsKey("HugePages_Total"));
        assertEquals("MemTotal", m.bytes().keySet().iterator().next(), "the file's order is kept");
    }

    @Test
    void currentKernelHasMemAvailable() {
        MeminfoParser.Meminfo m = parse("6.18");
        assertEquals(24239720L * 1024, m.bytes().get("MemAvailable"));
        assertEquals(4, m.counts().size());
    }

    @Test
    void malformedLinesFail() {
        String[] bad = {"MemTotal 1 kB\n", "MemTotal: kB\n", "MemTotal: 1 MB\n", "MemTotal: 1 kB\nMemTotal: 2 kB\n",
            ": 1 kB\n", "MemTotal: 99999999999999999 kB\n", "MemTotal: -1 kB\n"};
        for (String s : bad) {
            byte[] b = ascii(s);
            assertThrows(ProcfsParseException.class, () -> MeminfoParser.parse(SOURCE, b, b.length), s);
        }
    }

    @Test
    void generatedFilesRoundTrip() {
        qt().forAll(lists().of(longs().between(0, Long.MAX_VALUE / 1024)).ofSizeBetween(1, 30)).checkAssert(values -> {
            Map<String, Long> expected = new LinkedHashMap<>();
            StringBuilder sb = new StringBuilder();
            List<Long> counts = new ArrayList<>();
            for (int i = 0; i < values.size(); i++) {
                String key = i % 5 == 4 ? "HugePages_" + i : "Key(" + i + ")";
                if (key.startsWith("HugePages")) {
                    sb.append(String.format("%-16s%8d%n", key + ":", values.get(i)));
                    counts.add(values.get(i));
                } else {
                    sb.append(String.format("%-16s%8d kB%n", key + ":", values.get(i)));
                    expected.put(key, values.get(i) * 1024);
                }
            }
            byte[] b = ascii(sb.toString());
            MeminfoParser.Meminfo m = MeminfoParser.parse(SOURCE, b, b.length);
            assertEquals(expected, m.bytes());
            assertEquals(counts, new ArrayList<>(m.counts().values()));
        });
    }
}
