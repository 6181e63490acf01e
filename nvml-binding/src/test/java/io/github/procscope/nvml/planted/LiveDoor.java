package io.github.procscope.nvml.planted;

import io.github.procscope.api.gpu.Gpus;

/** A planted violation: a public static door onto the live system's GPUs, beside the front door. */
public final class LiveDoor {
    private LiveDoor() {
    }

    /** @return the GPUs, through a side door */
    public static Gpus open() {
        throw new UnsupportedOperationException("planted for ArchitectureTest only");
    }
}
