package io.github.procscope.metrics.planted;

import io.github.procscope.metrics.planted.family.PlantedFamily;

/** A planted violation of the architecture rules: a server that reaches into a family. */
public final class MetricsServer {
    private MetricsServer() {
    }

    /** @return the family's name */
    public static String name() {
        return PlantedFamily.name();
    }
}
