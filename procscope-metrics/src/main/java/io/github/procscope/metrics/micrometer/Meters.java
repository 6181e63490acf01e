package io.github.procscope.metrics.micrometer;

import io.github.procscope.metrics.model.MetricFamily;
import io.micrometer.core.instrument.Tag;
import io.micrometer.core.instrument.Tags;
import io.prometheus.metrics.model.snapshots.Label;
import io.prometheus.metrics.model.snapshots.Labels;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/** How a binder turns a family's definition and a series' labels into a meter's. */
final class Meters {
    private Meters() {
    }

    /** @return the family's unit as a Micrometer base unit, null for none */
    static String unit(MetricFamily family) {
        return family.unit().isEmpty() ? null : family.unit();
    }

    /** @return the labels as tags, those named in {@code leftOut} left out */
    static Tags tags(Labels labels, Set<String> leftOut) {
        List<Tag> tags = new ArrayList<>();
        for (Label l : labels) {
            if (!leftOut.contains(l.getName())) {
                tags.add(Tag.of(l.getName(), l.getValue()));
            }
        }
        return Tags.of(tags);
    }
}
