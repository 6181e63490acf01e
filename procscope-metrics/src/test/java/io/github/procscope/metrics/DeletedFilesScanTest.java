package io.github.procscope.metrics;

import io.github.procscope.api.Procscope;
import io.github.procscope.api.files.DeletedFilesScan;
import io.github.procscope.api.files.OpenFiles;
import io.github.procscope.api.process.ProcessTable;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.lang.reflect.Proxy;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The deleted-but-open files scan, within every scrape or on a thread of its own: this JVM holds a deleted file of
 * 1 MiB open, and the scrapes report it either way; on its own thread the scrapes do not wait for the scan.
 */
class DeletedFilesScanTest {

    /** @return the system's open-file reader, counting its scans */
    private static OpenFiles counting(AtomicInteger scans) {
        OpenFiles real = Procscope.system().openFiles();
        return (OpenFiles) Proxy.newProxyInstance(OpenFiles.class.getClassLoader(), new Class<?>[] {OpenFiles.class},
                (proxy, method, args) -> {
                    if (method.getName().equals("deletedFiles")) {
                        scans.incrementAndGet();
                    }
                    try {
                        return method.invoke(real, args);
                    } catch (java.lang.reflect.InvocationTargetException e) {
                        throw e.getCause();
                    }
                });
    }

    private static double deletedFiles(Exposition e) {
        return e.samples().entrySet().stream().filter(s -> s.getKey().startsWith("procscope_deleted_open_files{"))
                .mapToDouble(java.util.Map.Entry::getValue).sum();
    }

    @Test
    void aDeletedFileHeldOpenIsReportedWithinEveryScrapeOrFromTheLastScan() throws Exception {
        Path dir = Files.createTempDirectory(Path.of("target").toAbsolutePath(), "deleted");
        Path file = dir.resolve("held");
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE)) {
            ch.write(java.nio.ByteBuffer.allocate(1 << 20));
            Files.delete(file);
            AtomicInteger inline = new AtomicInteger();
            try (ProcscopeCollector c = new ProcscopeCollector(MetricsSources.of(Procscope.system().processes())
                    .withOpenFiles(counting(inline)), ExporterOptions.defaults().withDeletedFilesEvery(Duration.ZERO))) {
                assertTrue(deletedFiles(Exposition.of(c.collect())) >= 1, "this JVM's deleted file");
                c.collect();
                assertEquals(2, inline.get(), "one scan per scrape");
            }
            AtomicInteger background = new AtomicInteger();
            try (ProcscopeCollector c = new ProcscopeCollector(MetricsSources.of(Procscope.system().processes())
                    .withOpenFiles(counting(background)), ExporterOptions.defaults()
                    .withDeletedFilesEvery(Duration.ofHours(1)))) {
                long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
                Exposition e = Exposition.of(c.collect());
                while (deletedFiles(e) < 1 && System.nanoTime() < deadline) {
                    Thread.sleep(20);
                    e = Exposition.of(c.collect());
                }
                assertTrue(deletedFiles(e) >= 1, "reported from the scan of the thread the first scrape started");
                for (int i = 0; i < 5; i++) {
                    c.collect();
                }
                assertEquals(1, background.get(), "one scan an hour, however many scrapes");
            }
        } finally {
            Files.deleteIfExists(file);
            Files.delete(dir);
        }
        assertThrows(IllegalArgumentException.class,
                () -> ExporterOptions.defaults().withDeletedFilesEvery(Duration.ofSeconds(-1)));
    }
}
