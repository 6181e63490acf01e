package io.github.procscope.linux.parse;

import io.github.procscope.api.core.ProcfsParseException;
import io.github.procscope.api.system.LoadAverage;
import io.github.procscope.linux.proc.LinuxSystemResources;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.quicktheories.QuickTheory.qt;
import static org.quicktheories.generators.SourceDSL.integers;
import static org.quicktheories.generators.SourceDSL.lists;

class LoadavgParserTest {
    private static final Path SOURCE = Path.of("/proc/loadavg");

    private static LoadAverage parse(String s) {
        byte[] b = s.getBytes(StandardCharsets.ISO_8859_1);
        return LoadavgParser.parse(SOURCE, b, b.length);
    }

    @Test
    void theKernelsLineIsReadExactly() {
        LoadAverage l = parse("0.20 1.05 12.34 3/812 11206\n");
        assertEquals(0.20, l.oneMinute(), 1e-12);
        assertEquals(1.05, l.fiveMinutes(), 1e-12);
        assertEquals(12.34, l.fifteenMinutes(), 1e-12);
        assertEquals(3, l.runnableTasks());
        assertEquals(812, l.totalTasks());
        assertEquals(11206, l.lastPid());
    }

    @Test
    void aLineWithoutItsNewlineIsAccepted() {
        assertEquals(4194303, parse("0.00 0.00 0.00 0/1 4194303").lastPid());
    }

    @Test
    void malformedLinesNameTheFileAndWhatWasWrong() {
        ProcfsParseException e = assertThrows(ProcfsParseException.class, () -> parse("0.2 0.18 0.12 1/80 11206\n"));
        assertTrue(e.getMessage().contains("/proc/loadavg"), e.getMessage());
        assertTrue(e.getMessage().contains("two decimals"), e.getMessage());
        assertThrows(ProcfsParseException.class, () -> parse("0.20 0.18 0.12 1 80 11206\n"), "no slash");
        assertThrows(ProcfsParseException.class, () -> parse("0.20 0.18 0.12 1/80\n"), "no last pid");
        assertThrows(ProcfsParseException.class, () -> parse("0.20 0.18 0.12 1/80 11206 extra\n"), "trailing field");
        assertThrows(ProcfsParseException.class, () -> parse("-1.00 0.18 0.12 1/80 11206\n"), "negative");
        assertThrows(ProcfsParseException.class, () -> parse("0.20 0.18 0.12 1/99999999999 11206\n"), "too many");
        assertThrows(ProcfsParseException.class, () -> parse(""), "empty");
    }

    @Test
    void generatedLinesRoundTrip() {
        qt().forAll(lists().of(integers().between(0, 99_999)).ofSize(3), integers().between(0, 100_000),
                integers().between(1, 4_194_304)).checkAssert((hundredths, runnable, lastPid) -> {
                    String line = String.format("%d.%02d %d.%02d %d.%02d %d/%d %d%n",
                            hundredths.get(0) / 100, hundredths.get(0) % 100, hundredths.get(1) / 100,
                            hundredths.get(1) % 100, hundredths.get(2) / 100, hundredths.get(2) % 100, runnable,
                            runnable + 7, lastPid);
                    LoadAverage l = parse(line);
                    assertEquals(hundredths.get(0) / 100.0, l.oneMinute(), 1e-9, line);
                    assertEquals(hundredths.get(1) / 100.0, l.fiveMinutes(), 1e-9, line);
                    assertEquals(hundredths.get(2) / 100.0, l.fifteenMinutes(), 1e-9, line);
                    assertEquals((int) runnable, l.runnableTasks());
                    assertEquals(runnable + 7, l.totalTasks());
                    assertEquals((long) lastPid, l.lastPid());
                });
    }

    @Test
    void theLiveFileAgreesWithTheLibraryAndIsPlausible(@TempDir Path sys) throws IOException {
        LoadAverage l = LinuxSystemResources.at(Path.of("/proc"), sys).loadAverage();
        assertTrue(l.totalTasks() >= 1 && l.runnableTasks() <= l.totalTasks(), l.toString());
        String text = Files.readString(Path.of("/proc/loadavg"));
        String[] fields = text.trim().split(" ");
        // The averages change only every 5 s; a re-read within that time agrees unless it straddles an update.
        double one = Double.parseDouble(fields[0]);
        assertTrue(Math.abs(one - l.oneMinute()) < 5, text + " vs " + l);
    }

    @Test
    void aFixtureRootWithoutTheFileIsAProcfsError(@TempDir Path root) {
        assertThrows(io.github.procscope.api.core.ProcfsException.class,
                () -> LinuxSystemResources.at(root, root).loadAverage());
    }
}
