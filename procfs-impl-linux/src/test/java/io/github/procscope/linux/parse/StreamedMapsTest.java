package io.github.procscope.linux.parse;

import io.github.procscope.linux.sys.ProcBuffer;
import io.github.procscope.testing.Fixtures;

import io.github.procscope.api.core.ProcfsFileRefusedException;
import io.github.procscope.api.core.ProcfsParseException;
import io.github.procscope.api.memory.MemoryRegion;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.quicktheories.generators.SourceDSL;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.TreeSet;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.quicktheories.QuickTheory.qt;

/**
 * {@code maps} and {@code smaps} parsed as they are read ({@link ProcBuffer#stream}): the same regions as a
 * whole-file parse however the lines arrive, with repeated values shared, and a bound on what one line may be.
 */
class StreamedMapsTest {
    private static final Path SMAPS = Path.of("/proc/1234/smaps");

    /** Starts of the lines of {@code b}, and its end. */
    private static List<Integer> lineStarts(byte[] b) {
        List<Integer> out = new ArrayList<>(List.of(0));
        for (int i = 0; i < b.length; i++) {
            if (b[i] == '\n' && i + 1 < b.length) {
                out.add(i + 1);
            }
        }
        out.add(b.length);
        return out;
    }

    @Test
    void anyRunsOfWholeLinesGiveTheRegionsOfTheWholeFile() {
        for (String pid : new String[] {"1234", "2345", "3456"}) {
            byte[] b = Fixtures.bytes("proc-memory/" + pid + "/smaps");
            List<MemoryRegion> whole = SmapsParser.parseSmaps(SMAPS, b, b.length);
            List<Integer> starts = lineStarts(b);
            qt().withExamples(200).forAll(SourceDSL.lists().of(SourceDSL.integers().between(0, starts.size() - 1))
                    .ofSizeBetween(0, 30)).checkAssert(cuts -> {
                        TreeSet<Integer> at = new TreeSet<>();
                        cuts.forEach(i -> at.add(starts.get(i)));
                        at.add(0);
                        at.add(b.length);
                        SmapsParser.Regions r = new SmapsParser.Regions(() -> SMAPS);
                        Integer from = null;
                        for (int to : at) {
                            if (from != null && to > from) {
                                r.lines(b, from, to);
                            }
                            from = to;
                        }
                        assertEquals(whole, r.finish());
                    });
        }
    }

    /** A file of many regions like the fixture's, each block's addresses moved on, so that it spans many windows. */
    private static byte[] manyRegions(int copies) {
        String block = new String(Fixtures.bytes("proc-memory/1234/smaps"), StandardCharsets.ISO_8859_1);
        StringBuilder sb = new StringBuilder();
        for (int i = 0; i < copies; i++) {
            sb.append(block);
        }
        return sb.toString().getBytes(StandardCharsets.ISO_8859_1);
    }

    @Test
    void aFileManyWindowsLongStreamsToTheSameRegions(@TempDir Path dir) throws IOException {
        byte[] b = manyRegions(400); // well over a window of 64 KiB
        assertTrue(b.length > 8 * ProcBuffer.MAX_LINE, "spans windows: " + b.length);
        Path file = dir.resolve("smaps");
        Files.write(file, b);
        List<MemoryRegion> whole = SmapsParser.parseSmaps(SMAPS, b, b.length);

        SmapsParser.Regions streamed = new SmapsParser.Regions(() -> file);
        assertEquals(ProcBuffer.Result.OK, new ProcBuffer().stream(file.toString(), streamed));
        List<MemoryRegion> got = streamed.finish();
        assertEquals(whole, got);
        // Repeated values are shared, not copied: the same usage, path and permissions objects.
        int perCopy = whole.size() / 400;
        assertSame(got.get(0).usage().orElseThrow(), got.get(perCopy).usage().orElseThrow());
        assertSame(got.get(0).permissions(), got.get(perCopy).permissions());

        List<MemoryRegion> handedOn = new ArrayList<>();
        SmapsParser.Regions sink = new SmapsParser.Regions(() -> file, handedOn::add);
        new ProcBuffer().stream(file.toString(), sink);
        assertEquals(List.of(), sink.finish(), "handed on, none kept");
        assertEquals(whole, handedOn);
        assertEquals(whole.size(), sink.count());

        Path maps = dir.resolve("maps");
        StringBuilder m = new StringBuilder();
        for (MemoryRegion r : whole) {
            m.append(r).append('\n');
        }
        Files.writeString(maps, m.toString(), StandardCharsets.ISO_8859_1);
        MapsParser.Regions mr = new MapsParser.Regions(() -> maps);
        new ProcBuffer().stream(maps.toString(), mr);
        byte[] mb = Files.readAllBytes(maps);
        assertEquals(MapsParser.parse(maps, mb, mb.length), mr.finish());
    }

    @Test
    void aLineLongerThanAnyTheKernelWritesIsRefused(@TempDir Path dir) throws IOException {
        Path file = dir.resolve("smaps");
        byte[] line = new byte[ProcBuffer.MAX_LINE + 1];
        java.util.Arrays.fill(line, (byte) 'a');
        Files.write(file, line);
        ProcfsFileRefusedException e = assertThrows(ProcfsFileRefusedException.class,
                () -> new ProcBuffer().stream(file.toString(), (b, from, to) -> { }));
        assertTrue(e.getMessage().contains("has a line longer than 64 KiB"), e.getMessage());
    }

    @Test
    void aMalformedLineEndsTheStreamWithItsParseError(@TempDir Path dir) throws IOException {
        byte[] b = manyRegions(100);
        String text = new String(b, StandardCharsets.ISO_8859_1);
        int late = text.indexOf("\nRss:", text.length() / 2) + 1;
        Files.writeString(dir.resolve("smaps"), text.substring(0, late) + "Rss: lots kB\n" + text.substring(late),
                StandardCharsets.ISO_8859_1);
        Path file = dir.resolve("smaps");
        ProcfsParseException e = assertThrows(ProcfsParseException.class,
                () -> new ProcBuffer().stream(file.toString(), new SmapsParser.Regions(() -> file)));
        assertEquals("Rss: lots kB", e.line());
        assertEquals(file, e.file());
    }

    @Test
    void aFifoInPlaceOfSmapsIsRefusedUnopened(@TempDir Path dir) throws Exception {
        Path fifo = dir.resolve("smaps");
        Process p = new ProcessBuilder("mkfifo", fifo.toString()).start();
        assertEquals(0, p.waitFor());
        assertThrows(ProcfsFileRefusedException.class,
                () -> new ProcBuffer().stream(fifo.toString(), new SmapsParser.Regions(() -> fifo)));
    }
}
