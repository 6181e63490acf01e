package io.github.procscope.nvml;

import io.github.procscope.api.GpusProvider;
import io.github.procscope.api.Procscope;
import io.github.procscope.api.gpu.Gpus;

/** Registers {@link NvmlGpus} with {@link java.util.ServiceLoader} for {@link Procscope#openGpus()}. */
public final class NvmlGpusProvider implements GpusProvider {
    /** Creates the provider (called by {@link java.util.ServiceLoader}). */
    public NvmlGpusProvider() {
    }

    @Override
    public Gpus openGpus(Procscope procscope) {
        return NvmlGpus.builder().openFiles(procscope.openFiles()).open();
    }
}
