package io.github.procscope.api.spi;

import io.github.procscope.api.files.OpenFiles;

/**
 * Registered in {@code META-INF/services/io.github.procscope.api.spi.OpenFilesProvider} by an
 * implementation module; {@link OpenFiles#system()} uses the first one found.
 */
public interface OpenFilesProvider {
    /** @return the open-file reader of the live system */
    OpenFiles systemOpenFiles();
}
