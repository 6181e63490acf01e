package io.github.procscope.linux.sys;

import io.github.procscope.testing.Spawned;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A JVM that takes one snapshot (a one-shot tool) binds no native call: the first reader reads through the JDK
 * and starts no background loading. A JVM that keeps snapshotting gets the native reader from the second on.
 */
class OneShotLoadsNothingNativeTest {
    private final Spawned spawned = new Spawned();

    @AfterEach
    void end() {
        spawned.close();
    }

    /** A class of a binding at work: jffi (jnr's native core), jnr-ffi's provider, or the FFM back end. */
    private static boolean nativeClass(String logLine) {
        return logLine.contains(" com.kenai.jffi.") || logLine.contains(" jnr.ffi.provider.")
                || logLine.contains(" io.github.procscope.linux.sys.FfmWall") || logLine.contains(" java.lang.foreign.Linker");
    }

    @Test
    void oneSnapshotLoadsNoNativeBindingAndLaterOnesDo() throws Exception {
        ProcessBuilder pb = Spawned.javaCommand(List.of("-Xlog:class+load=info:stdout"), OneShotProbe.class)
                .redirectErrorStream(true);
        Process p = spawned.start(pb);
        List<String> before = new ArrayList<>();
        List<String> after = new ArrayList<>();
        String verdict = null;
        try (BufferedReader r = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8))) {
            List<String> into = before;
            for (String line; (line = r.readLine()) != null; ) {
                if (line.equals("one-snapshot-done")) {
                    into = after;
                } else if (line.startsWith("native-")) {
                    verdict = line;
                } else {
                    into.add(line);
                }
            }
        }
        assertTrue(p.waitFor(60, TimeUnit.SECONDS));
        assertEquals(0, p.exitValue());
        assertTrue(before.size() > 100, "the class-load log is read: " + before.size() + " lines");
        assertEquals(List.of(), before.stream().filter(OneShotLoadsNothingNativeTest::nativeClass).toList(),
                "one snapshot loads no native binding");
        assertTrue(verdict != null && verdict.startsWith("native-after "), "later snapshots go native: " + verdict);
        assertTrue(after.stream().anyMatch(OneShotLoadsNothingNativeTest::nativeClass), "the binding was loaded");
    }
}
