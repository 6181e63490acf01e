package io.github.procscope.metrics;

import io.github.procscope.metrics.model.MetricFamily;
import io.prometheus.metrics.config.EscapingScheme;
import io.prometheus.metrics.expositionformats.ExpositionFormatWriter;
import io.prometheus.metrics.expositionformats.ExpositionFormats;
import io.prometheus.metrics.expositionformats.PrometheusTextFormatWriter;
import io.prometheus.metrics.model.snapshots.MetricSnapshots;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;

/**
 * Writes a scrape in the format a scraper asks for (its {@code Accept} header), as the Prometheus client does, with
 * one difference: dcgm-exporter's counters whose names lack {@code _total} (energy, PCIe replays, remapped rows,
 * ECC totals) are typed {@code counter} in the Prometheus text format under their own names, as dcgm-exporter
 * writes them. The Prometheus client would append {@code _total} to a counter, and OpenMetrics requires that suffix,
 * so those families ({@link io.github.procscope.metrics.model.MetricType#UNSUFFIXED_COUNTER}) are untyped in the model and stay {@code unknown} in OpenMetrics: the name dashboards query wins
 * over the type there.
 */
final class ScrapeWriter {
    private final ExpositionFormats formats = ExpositionFormats.init();

    /** @return the content type of the answer to this {@code Accept} header */
    String contentType(String accept) {
        return formats.findWriter(accept).getContentType();
    }

    /** Writes the snapshots in the format the {@code Accept} header asks for (Prometheus text when it asks none). */
    void write(String accept, MetricSnapshots snapshots, OutputStream out) throws IOException {
        ExpositionFormatWriter writer = formats.findWriter(accept);
        if (!(writer instanceof PrometheusTextFormatWriter)) {
            writer.write(out, snapshots, EscapingScheme.ALLOW_UTF8);
            return;
        }
        ByteArrayOutputStream text = new ByteArrayOutputStream(64 * 1024);
        writer.write(text, snapshots, EscapingScheme.ALLOW_UTF8);
        out.write(retype(text.toString(StandardCharsets.UTF_8)).getBytes(StandardCharsets.UTF_8));
    }

    /** @return Prometheus text with the {@code untyped} TYPE lines of the unsuffixed counters made {@code counter} */
    static String retype(String text) {
        StringBuilder out = new StringBuilder(text.length());
        int at = 0;
        while (at < text.length()) {
            int end = text.indexOf('\n', at);
            end = end < 0 ? text.length() : end + 1;
            String line = text.substring(at, end);
            if (line.startsWith("# TYPE ") && line.endsWith(" untyped\n")) {
                String name = line.substring("# TYPE ".length(), line.length() - " untyped\n".length());
                if (MetricFamily.isUnsuffixedCounter(name)) {
                    line = "# TYPE " + name + " counter\n";
                }
            }
            out.append(line);
            at = end;
        }
        return out.toString();
    }
}
