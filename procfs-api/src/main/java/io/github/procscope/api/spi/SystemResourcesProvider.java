package io.github.procscope.api.spi;

import io.github.procscope.api.SystemResources;

/**
 * Registered in {@code META-INF/services/io.github.procscope.api.spi.SystemResourcesProvider} by an
 * implementation module; {@link SystemResources#system()} uses the first one found.
 */
public interface SystemResourcesProvider {
    /** @return the resources of the live system */
    SystemResources systemResources();
}
