package io.github.procscope.metrics;

import io.prometheus.metrics.config.EscapingScheme;
import io.prometheus.metrics.expositionformats.ExpositionFormatWriter;
import io.prometheus.metrics.expositionformats.ExpositionFormats;
import io.prometheus.metrics.expositionformats.PrometheusTextFormatWriter;
import io.prometheus.metrics.model.snapshots.MetricSnapshots;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.util.Set;

/**
 * Writes a scrape in the format a scraper asks for (its {@code Accept} header), as the Prometheus client does, with
 * one difference: dcgm-exporter's counters whose names lack {@code _total} (energy, PCIe replays, remapped rows,
 * ECC totals), and process-exporter's scrape-error counters, are typed {@code counter} in the Prometheus text format under their own names, as dcgm-exporter
 * writes them. The Prometheus client would append {@code _total} to a counter, and OpenMetrics requires that suffix,
 * so those families are untyped in the model and stay {@code unknown} in OpenMetrics: the name dashboards query wins
 * over the type there.
 */
final class ScrapeWriter {
    /** dcgm-exporter's and process-exporter's counters that carry no {@code _total} suffix. */
    static final Set<String> UNSUFFIXED_COUNTERS = Set.of(
            "DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION",
            "DCGM_FI_DEV_PCIE_REPLAY_COUNTER",
            "DCGM_FI_DEV_CORRECTABLE_REMAPPED_ROWS",
            "DCGM_FI_DEV_UNCORRECTABLE_REMAPPED_ROWS",
            "DCGM_FI_DEV_ECC_SBE_VOL_TOTAL",
            "DCGM_FI_DEV_ECC_DBE_VOL_TOTAL",
            "DCGM_FI_DEV_ECC_SBE_AGG_TOTAL",
            "DCGM_FI_DEV_ECC_DBE_AGG_TOTAL",
            "namedprocess_scrape_errors",
            "namedprocess_scrape_partial_errors",
            "namedprocess_scrape_procread_errors");

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
        String result = text;
        for (String name : UNSUFFIXED_COUNTERS) {
            String untyped = "\n# TYPE " + name + " untyped\n";
            int at = result.indexOf(untyped);
            if (at >= 0) {
                result = result.substring(0, at) + "\n# TYPE " + name + " counter\n"
                        + result.substring(at + untyped.length());
            }
        }
        return result;
    }
}
