package io.github.procscope.api.spi;

import io.github.procscope.api.memory.ProcessMemory;

/**
 * Registered in {@code META-INF/services/io.github.procscope.api.spi.ProcessMemoryProvider} by an
 * implementation module; {@link ProcessMemory#system()} uses the first one found.
 */
public interface ProcessMemoryProvider {
    /** @return the process memory reader of the live system */
    ProcessMemory systemProcessMemory();
}
