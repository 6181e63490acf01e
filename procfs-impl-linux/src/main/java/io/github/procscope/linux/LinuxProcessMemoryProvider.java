package io.github.procscope.linux;

import io.github.procscope.api.memory.ProcessMemory;
import io.github.procscope.api.spi.ProcessMemoryProvider;

/** Registers {@link LinuxProcessMemory#system()} with {@link java.util.ServiceLoader}. */
public final class LinuxProcessMemoryProvider implements ProcessMemoryProvider {
    /** Creates the provider (called by {@link java.util.ServiceLoader}). */
    public LinuxProcessMemoryProvider() {
    }

    @Override
    public ProcessMemory systemProcessMemory() {
        return Holder.SYSTEM;
    }

    private static final class Holder {
        static final LinuxProcessMemory SYSTEM = LinuxProcessMemory.system();
    }
}
