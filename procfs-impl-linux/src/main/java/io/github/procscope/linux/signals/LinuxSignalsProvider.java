package io.github.procscope.linux.signals;

import io.github.procscope.api.signals.Signals;
import io.github.procscope.api.spi.SignalsProvider;

/** Registers {@link LinuxSignals#system()} with {@link java.util.ServiceLoader}. */
public final class LinuxSignalsProvider implements SignalsProvider {
    private static final Object LOCK = new Object();
    private static LinuxSignals system;

    /** Creates the provider (called by {@link java.util.ServiceLoader}). */
    public LinuxSignalsProvider() {
    }

    @Override
    public Signals systemSignals() {
        synchronized (LOCK) {
            if (system == null) {
                system = LinuxSignals.system();
            }
            return system;
        }
    }
}
