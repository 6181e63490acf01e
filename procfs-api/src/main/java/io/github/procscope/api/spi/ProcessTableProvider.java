package io.github.procscope.api.spi;

import io.github.procscope.api.ProcessTable;

/**
 * Registered in {@code META-INF/services/io.github.procscope.api.spi.ProcessTableProvider} by an
 * implementation module; {@link ProcessTable#system()} uses the first one found.
 */
public interface ProcessTableProvider {
    /** @return the process table of the live system */
    ProcessTable systemProcessTable();
}
