package io.github.procscope.cli;

import com.fasterxml.jackson.databind.node.ObjectNode;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.time.ZonedDateTime;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A job's supervisor replaces its record whole (written aside, renamed over it) each time the job changes state,
 * while {@code run --detach}, {@code jobs} and {@code serve} read it: a reader that meets a replacement reads the
 * new record, never reports the record gone or refused.
 */
class JobStoreReplacedRecordTest {
    private static ObjectNode record(String id, Path log, String state) {
        ObjectNode rec = Json.object();
        rec.put("id", id);
        rec.put("state", state);
        Json.putStrings(rec, "command", List.of("sh", "-c", "sleep 1"));
        rec.put("startTime", "2026-01-01T00:00:00Z");
        rec.put("log", log.toString());
        return rec;
    }

    @Test
    void aRecordReplacedWhileItIsReadIsReadAgainAsItsWriterLeftIt(@TempDir Path tmp) throws Exception {
        JobStore store = JobStore.open(tmp.resolve("state"), true);
        String id = JobStore.stamp(ZonedDateTime.now(), 1);
        Path log = tmp.resolve(id + ".log");
        assertTrue(store.create(id, record(id, log, "starting")));
        AtomicBoolean stop = new AtomicBoolean();
        AtomicLong writes = new AtomicLong();
        Thread writer = new Thread(() -> {
            String[] states = {"starting", "running"};
            while (!stop.get()) {
                store.write(id, record(id, log, states[(int) (writes.getAndIncrement() % 2)]));
            }
        }, "record-writer");
        writer.start();
        long reads = 0;
        try {
            long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(3);
            while (System.nanoTime() < end) {
                Optional<JobStore.Loaded> loaded = store.read(id);
                assertTrue(loaded.isPresent(), "the record was reported gone after " + reads + " reads");
                assertTrue(loaded.get().usable(), loaded.get().refusal() + " (after " + reads + " reads, "
                        + writes.get() + " writes)");
                String state = loaded.get().record().orElseThrow().path("state").asText();
                assertTrue(state.equals("starting") || state.equals("running"), state);
                reads++;
            }
        } finally {
            stop.set(true);
            writer.join(TimeUnit.SECONDS.toMillis(30));
        }
        assertTrue(writes.get() > 100 && reads > 100, writes + " writes, " + reads + " reads");
        // and once the writer is done, the record is its last one
        String last = (writes.get() - 1) % 2 == 0 ? "starting" : "running";
        assertEquals(last, store.usable(id).orElseThrow().path("state").asText());
    }
}
