package io.github.procscope.api.spi;

import io.github.procscope.api.diagnose.KernelLog;

/** Registered in {@code META-INF/services}; {@link KernelLog#system()} uses the first one found. */
public interface KernelLogProvider {
    /** @return the kernel log of the live system */
    KernelLog systemKernelLog();
}
