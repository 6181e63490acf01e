package io.github.procscope.cli;

import io.github.procscope.testing.Commands;
import io.github.procscope.testing.Spawned;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code doctor --kmsg} naming something that is not a kernel log ({@code /dev/zero}, which never ends; a FIFO,
 * which blocks): the tool, in a JVM of 64 MiB heap, answers with one line and exit status 2 within 2 s of what
 * its start takes, instead of filling memory, hanging, or skipping the check without a word.
 */
class DoctorKmsgIT {
    @TempDir
    Path tmp;

    private record Run(int status, List<String> err, long millis) {
    }

    private Run run(String... args) throws IOException, InterruptedException {
        List<String> jvm = new ArrayList<>(List.of("-Xmx64m"));
        if (Runtime.version().feature() >= 22) {
            jvm.add("--enable-native-access=ALL-UNNAMED"); // no JVM warning before the tool's own line
        }
        Path err = tmp.resolve("err-" + System.nanoTime() + ".txt");
        long start = System.nanoTime();
        Process p = Spawned.javaCommand(jvm, ProcscopeCli.class, args).redirectError(err.toFile())
                .redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
        try {
            assertTrue(p.waitFor(60, TimeUnit.SECONDS), "still running after 60 s: " + String.join(" ", args));
        } finally {
            p.destroyForcibly();
        }
        long millis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
        return new Run(p.exitValue(), Files.readAllLines(err, StandardCharsets.UTF_8), millis);
    }

    private void assertRefusedQuickly(String kmsg, Run baseline) throws Exception {
        Run r = run("doctor", "--no-gpu", "--window", "0s", "--kmsg", kmsg);
        assertEquals(ProcscopeCli.USAGE, r.status(), r.err().toString());
        assertEquals(1, r.err().size(), "one line: " + r.err());
        String line = r.err().get(0);
        assertTrue(line.startsWith("procscope doctor: --kmsg " + kmsg + ": "), line);
        assertTrue(line.contains("refusing to read it"), line);
        assertFalse(line.contains("OutOfMemoryError") || line.contains("Exception"), line);
        assertTrue(r.millis() <= baseline.millis() + 2000, "answered in " + r.millis() + " ms; the tool starts and"
                + " prints its version in " + baseline.millis() + " ms");
    }

    @Test
    void devZeroAndAFifoAreRefusedWithOneLineWithinTwoSeconds() throws Exception {
        Run baseline = run("--version");
        assertEquals(0, baseline.status(), baseline.err().toString());
        assertRefusedQuickly("/dev/zero", baseline);
        Path fifo = tmp.resolve("kmsg.fifo");
        Commands.run("mkfifo", fifo.toString());
        assertRefusedQuickly(fifo.toString(), baseline);
    }

    @Test
    void aMissingKmsgFileIsAUsageErrorToo() throws Exception {
        Run r = run("doctor", "--no-gpu", "--window", "0s", "--kmsg", tmp.resolve("absent").toString());
        assertEquals(ProcscopeCli.USAGE, r.status(), r.err().toString());
        assertEquals(1, r.err().size(), r.err().toString());
        assertTrue(r.err().get(0).contains("no kernel log"), r.err().toString());
    }
}
