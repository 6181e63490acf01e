package io.github.procscope.metrics.planted.family;

import io.github.procscope.metrics.planted.MetricsServer;

/** A planted violation of the architecture rules: a family that calls the server (and so makes a cycle). */
public final class PlantedFamily {
    /** @return the family's name */
    public static String name() {
        return "planted";
    }

    private PlantedFamily() {
    }

    /** @return what the server says */
    public static String served() {
        return MetricsServer.name();
    }
}
