package io.github.procscope.linux;

import io.github.procscope.api.ProcessTable;
import io.github.procscope.api.spi.ProcessTableProvider;

/** Registers {@link LinuxProcfs#system()} with {@link java.util.ServiceLoader}. */
public final class LinuxProcessTableProvider implements ProcessTableProvider {
    /** Creates the provider (called by {@link java.util.ServiceLoader}). */
    public LinuxProcessTableProvider() {
    }

    @Override
    public ProcessTable systemProcessTable() {
        return Holder.SYSTEM;
    }

    private static final class Holder {
        static final LinuxProcfs SYSTEM = LinuxProcfs.system();
    }
}
