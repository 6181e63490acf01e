package io.github.procscope.linux.sys;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

class ProcBufferTest {
    @TempDir
    Path tmp;

    @Test
    void readsWholeFilesLargerThanTheBuffer() throws Exception {
        Path f = tmp.resolve("big");
        byte[] data = new byte[10_000];
        for (int i = 0; i < data.length; i++) {
            data[i] = (byte) ('a' + i % 26);
        }
        Files.write(f, data);
        ProcBuffer b = new ProcBuffer(16);
        assertEquals(ProcBuffer.Result.OK, b.read(f));
        assertEquals(data.length, b.length());
        assertEquals(new String(data, StandardCharsets.US_ASCII), new String(b.bytes(), 0, b.length(),
                StandardCharsets.US_ASCII));
    }

    @Test
    void missingFilesAndDirectoriesAreNotFound() {
        ProcBuffer b = new ProcBuffer();
        assertEquals(ProcBuffer.Result.NOT_FOUND, b.read(tmp.resolve("absent")));
        assertEquals(ProcBuffer.Result.NOT_FOUND, b.read(tmp.resolve("absent/stat")));
    }

    @Test
    void aThreadWithItsInterruptFlagSetStillReadsProc() {
        ProcBuffer b = new ProcBuffer();
        Thread.currentThread().interrupt();
        try {
            assertEquals(ProcBuffer.Result.OK, b.read(Path.of("/proc/self/stat")));
            assertTrue(b.length() > 0);
            assertTrue(Thread.currentThread().isInterrupted(), "the flag is left for the caller");
        } finally {
            Thread.interrupted();
        }
    }
}
