package io.github.procscope.metrics;

import io.github.procscope.api.process.ProcessInfo;
import io.github.procscope.api.process.ProcessTable;
import org.junit.jupiter.api.Test;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.function.Consumer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A scrape grouped without a process tree (by command name, by rules) reads what its groups report beyond the
 * snapshot (the status counters, the limit on open files) for each grouped process as the snapshot hands it on,
 * before the next process is read: one pass over {@code /proc}. A grouper that needs the tree reads them after.
 * Either way the exposition is the same.
 */
class OnePassScrapeTest {

    /** @return a table over the fixture that writes what is read, in order, into {@code log} */
    private static ProcessTable logging(List<String> log) {
        ProcessTable real = Fixture.procfs();
        return (ProcessTable) Proxy.newProxyInstance(ProcessTable.class.getClassLoader(),
                new Class<?>[] {ProcessTable.class}, (proxy, method, args) -> {
                    String name = method.getName();
                    if (name.equals("snapshot") && args != null && args.length == 2) {
                        @SuppressWarnings("unchecked")
                        Consumer<ProcessInfo> each = (Consumer<ProcessInfo>) args[1];
                        Object s = real.snapshot(Set.copyOf(castFacets(args[0])), p -> {
                            log.add("read " + p.pid());
                            each.accept(p);
                        });
                        log.add("snapshot taken");
                        return s;
                    }
                    if (name.equals("snapshot")) {
                        Object s = method.invoke(real, args);
                        log.add("snapshot taken");
                        return s;
                    }
                    if (name.equals("statusCounters") || name.equals("openFilesLimit")) {
                        log.add(name + " " + args[0]);
                    }
                    try {
                        return method.invoke(real, args);
                    } catch (InvocationTargetException e) {
                        throw e.getCause();
                    }
                });
    }

    @SuppressWarnings("unchecked")
    private static Set<io.github.procscope.api.process.Facet> castFacets(Object o) {
        return (Set<io.github.procscope.api.process.Facet>) o;
    }

    private static String scrape(ProcessTable table, ExporterOptions options) {
        try (ProcscopeCollector c = new ProcscopeCollector(MetricsSources.of(table), options)) {
            return Exposition.of(c.collect()).text();
        }
    }

    private static String withoutDuration(String exposition) {
        return exposition.replaceAll("(?m)^procscope_scrape_duration_seconds .*$", "");
    }

    @Test
    void byCommandNameEachGroupedProcessIsReadOnBeforeTheNextIsRead() {
        List<String> log = new ArrayList<>();
        String text = scrape(logging(log), ExporterOptions.defaults().withHostname("node-7"));
        int taken = log.indexOf("snapshot taken");
        assertTrue(taken > 0, String.join("\n", log));
        int counted = 0;
        String lastRead = null;
        for (int i = 0; i < log.size(); i++) {
            String e = log.get(i);
            if (e.startsWith("read ")) {
                lastRead = e.substring(5);
            } else if (e.startsWith("statusCounters ") || e.startsWith("openFilesLimit ")) {
                assertTrue(i < taken, "read within the snapshot's pass: " + e + "\n" + String.join("\n", log));
                assertEquals(lastRead, e.substring(e.indexOf(' ') + 1), "right after its process was read: " + e);
                counted++;
            }
        }
        assertTrue(counted >= 8, "the grouped processes' counters and limits were read: " + counted);
        assertEquals(withoutDuration(scrape(Fixture.procfs(), ExporterOptions.defaults().withHostname("node-7"))),
                withoutDuration(text), "the same exposition as a scrape of the table itself, but for its duration");
    }

    @Test
    void byRulesTooAndAGrouperThatNeedsTheTreeReadsAfterTheSnapshot() {
        List<String> log = new ArrayList<>();
        ExporterOptions rules = ExporterOptions.defaults().withHostname("node-7").withGrouper(ProcessGrouper.matching(
                List.of(ProcessGrouper.Rule.parse("workers=pt_data_.*"), ProcessGrouper.Rule.parse("other=.*"))));
        scrape(logging(log), rules);
        int taken = log.indexOf("snapshot taken");
        assertTrue(log.stream().filter(e -> e.startsWith("statusCounters ")).allMatch(e -> log.indexOf(e) < taken),
                String.join("\n", log));
        log.clear();
        scrape(logging(log), ExporterOptions.defaults().withHostname("node-7").withGrouper(ProcessGrouper.byJobTree(Set.of())));
        int after = log.indexOf("snapshot taken");
        assertTrue(log.stream().filter(e -> e.startsWith("statusCounters ")).allMatch(e -> log.indexOf(e) > after),
                String.join("\n", log));
        assertTrue(log.stream().anyMatch(e -> e.startsWith("statusCounters ")), String.join("\n", log));
    }
}
