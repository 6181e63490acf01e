package io.github.procscope.metrics.family;

import io.github.procscope.api.core.ProcscopeException;
import io.github.procscope.api.files.DeletedFilesScan;
import io.github.procscope.api.files.DeletedSpace;
import io.github.procscope.api.files.OpenFiles;
import io.github.procscope.metrics.model.MetricFamily;
import io.github.procscope.metrics.model.Scrape;
import io.prometheus.metrics.model.snapshots.Labels;

import java.time.Duration;
import java.util.List;
import java.util.Objects;

/**
 * {@code procscope_deleted_open_bytes} and {@code procscope_deleted_open_files} per file system: the space of
 * deleted files that processes still hold open. Scanned within each scrape, or every so often on a thread of its
 * own that the first scrape starts, whose last scan each scrape reports.
 */
public final class DeletedOpenFiles implements AutoCloseable {
    /** {@code procscope_deleted_open_bytes{device,mountpoint,fstype}}. */
    public static final MetricFamily BYTES = MetricFamily.gauge("procscope_deleted_open_bytes",
            "Disk space held by deleted files that processes still hold open, in bytes, per file system.", "bytes");
    /** {@code procscope_deleted_open_files{device,mountpoint,fstype}}. */
    public static final MetricFamily FILES = MetricFamily.gauge("procscope_deleted_open_files",
            "Deleted files that processes still hold open, per file system.");
    /** Every family of this class, in the order a scrape gives them. */
    public static final List<MetricFamily> FAMILIES = List.of(BYTES, FILES);

    private final OpenFiles files;
    private final Duration every;
    private final ScrapeHealth health;
    private volatile DeletedFilesScan last;
    private Thread thread;

    /**
     * @param files  the open-file reader
     * @param every  how often to scan; zero to scan within each scrape
     * @param health where a failed scan is counted (as {@code open_files})
     */
    public DeletedOpenFiles(OpenFiles files, Duration every, ScrapeHealth health) {
        this.files = Objects.requireNonNull(files, "files");
        this.every = Objects.requireNonNull(every, "every");
        this.health = Objects.requireNonNull(health, "health");
    }

    /**
     * Adds the last scan's series, scanning first when scans are made within scrapes.
     *
     * @param s the scrape
     */
    public synchronized void collect(Scrape s) {
        if (every.isZero()) {
            scan();
        } else if (thread == null) {
            long millis = Math.max(1, every.toMillis());
            thread = new Thread(() -> {
                while (!Thread.currentThread().isInterrupted()) {
                    scan();
                    try {
                        Thread.sleep(millis);
                    } catch (InterruptedException e) {
                        return;
                    }
                }
            }, "procscope-metrics-deleted-files");
            thread.setDaemon(true);
            thread.start();
        }
        DeletedFilesScan scan = last;
        if (scan == null) {
            return;
        }
        for (DeletedSpace fs : scan.fileSystems()) {
            Labels l = Labels.of("device", fs.device().toString(), "mountpoint", fs.mountPoint().orElse(""),
                    "fstype", fs.fsType().orElse(""));
            s.add(BYTES, l, fs.allocatedBytes());
            s.add(FILES, l, fs.files());
        }
    }

    private void scan() {
        try {
            last = files.deletedFiles();
        } catch (ProcscopeException e) {
            health.error("open_files");
        }
    }

    /** Stops the scanning thread, if one was started. */
    @Override
    public synchronized void close() {
        if (thread != null) {
            thread.interrupt();
        }
    }
}
