package io.github.procscope.linux;

import io.github.procscope.api.SystemResources;
import io.github.procscope.api.spi.SystemResourcesProvider;

/** Registers {@link LinuxSystemResources#system()} with {@link java.util.ServiceLoader}. */
public final class LinuxSystemResourcesProvider implements SystemResourcesProvider {
    /** Creates the provider (called by {@link java.util.ServiceLoader}). */
    public LinuxSystemResourcesProvider() {
    }

    @Override
    public SystemResources systemResources() {
        return Holder.SYSTEM;
    }

    private static final class Holder {
        static final LinuxSystemResources SYSTEM = LinuxSystemResources.system();
    }
}
