package io.github.procscope.api.spi;

import io.github.procscope.api.signals.Signals;

/**
 * Registered in {@code META-INF/services/io.github.procscope.api.spi.SignalsProvider} by an
 * implementation module; {@link Signals#system()} uses the first one found.
 */
public interface SignalsProvider {
    /**
     * @return the signal sender of the live system
     * @throws io.github.procscope.api.signals.SignalsUnavailableException if its native access cannot be set up
     */
    Signals systemSignals();
}
