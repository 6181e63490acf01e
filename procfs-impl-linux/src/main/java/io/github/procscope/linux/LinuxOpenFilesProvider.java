package io.github.procscope.linux;

import io.github.procscope.api.files.OpenFiles;
import io.github.procscope.api.spi.OpenFilesProvider;

/** Registers {@link LinuxOpenFiles#system()} with {@link java.util.ServiceLoader}. */
public final class LinuxOpenFilesProvider implements OpenFilesProvider {
    /** Creates the provider (called by {@link java.util.ServiceLoader}). */
    public LinuxOpenFilesProvider() {
    }

    @Override
    public OpenFiles systemOpenFiles() {
        return Holder.SYSTEM;
    }

    private static final class Holder {
        static final LinuxOpenFiles SYSTEM = LinuxOpenFiles.system();
    }
}
