package io.github.procscope.metrics;

import io.github.procscope.api.Procscope;
import io.github.procscope.api.core.ProcessKey;
import io.github.procscope.api.process.ProcessTable;
import io.github.procscope.metrics.family.JobTreeUsage;
import io.github.procscope.metrics.micrometer.JobTreeMetrics;
import io.github.procscope.metrics.model.MetricFamily;
import io.micrometer.core.instrument.Tags;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The {@code procscope_job_*} families as the collector behind {@code serve} writes them and as the Micrometer
 * binder registers them: the same names, help texts, types and labels, in the Prometheus text format.
 */
class JobFamiliesTest {
    private static final Pattern SAMPLE = Pattern.compile("(procscope_job_[a-z_]+)\\{([^}]*)\\} .*");
    private static final Pattern LABEL = Pattern.compile("([a-zA-Z_][a-zA-Z0-9_]*)=\"");

    /** The HELP and TYPE lines of the job families, and each sample's name with its label names. */
    private static Set<String> shape(String text) {
        Set<String> out = new TreeSet<>();
        for (String line : text.split("\n")) {
            if (line.startsWith("# HELP procscope_job_") || line.startsWith("# TYPE procscope_job_")) {
                out.add(line);
            }
            Matcher m = SAMPLE.matcher(line);
            if (m.matches()) {
                Set<String> labels = new TreeSet<>();
                Matcher l = LABEL.matcher(m.group(2));
                while (l.find()) {
                    labels.add(l.group(1));
                }
                out.add(m.group(1) + labels);
            }
        }
        return out;
    }

    @Test
    void theBinderAndTheCollectorWriteTheSameJobFamilies() {
        ProcessTable table = Procscope.system().processes();
        ProcessKey self = table.key(ProcessHandle.current().pid());
        PrometheusMeterRegistry meters = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
        new JobTreeMetrics(table, self.pid(), Duration.ZERO, Tags.of(JobTreeUsage.JOB_ID, "train-1")).bindTo(meters);
        String binder = meters.scrape();

        String collector;
        try (ProcscopeCollector c = new ProcscopeCollector(
                MetricsSources.of(table).withJobs(() -> Map.of("train-1", self)), ExporterOptions.defaults())) {
            collector = Exposition.render(c.collect(), false);
        }
        Set<String> fromBinder = shape(binder);
        Set<String> fromCollector = shape(collector);
        // every family of the class, once each, in both
        for (MetricFamily f : JobTreeUsage.FAMILIES) {
            assertTrue(fromCollector.contains(f.name() + "[job_id, root_pid]"), f.name() + " in " + collector);
        }
        assertEquals(3 * JobTreeUsage.FAMILIES.size(), fromCollector.size(), fromCollector.toString());
        assertEquals(fromCollector, fromBinder, "the collector's job families against the binder's\n" + binder);
        assertTrue(collector.contains("procscope_job_processes{job_id=\"train-1\",root_pid=\"" + self.pid() + "\"}"),
                collector);
    }

    @Test
    void aJobWhoseRootIsGoneOrAnotherProcessHasNoSeries() {
        ProcessTable table = Procscope.system().processes();
        ProcessKey self = table.key(ProcessHandle.current().pid());
        // the same pid with another start time: a recycled pid, not the job's process
        ProcessKey recycled = new ProcessKey(self.pid(), self.startTimeTicks() + 1);
        try (ProcscopeCollector c = new ProcscopeCollector(MetricsSources.of(table)
                .withJobs(() -> Map.of("recycled", recycled, "gone", new ProcessKey(4_194_304, 1))),
                ExporterOptions.defaults())) {
            Exposition e = Exposition.of(c.collect());
            assertEquals(0, e.count("procscope_job_processes"), e.text());
        }
    }

    @Test
    void aJobListThatFailsIsCountedAsAFailedRead() {
        try (ProcscopeCollector c = new ProcscopeCollector(MetricsSources.of(Procscope.system().processes())
                .withJobs(() -> {
                    throw new IllegalArgumentException("cannot list the job state directory");
                }), ExporterOptions.defaults())) {
            c.collect();
            Exposition e = Exposition.of(c.collect());
            assertEquals(2, e.get("procscope_scrape_errors_total{source=\"jobs\"}"), e.text());
            assertEquals(0, e.count("procscope_job_processes"), e.text());
        }
    }
}
