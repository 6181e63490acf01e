package io.github.procscope.api.gpu;

import io.github.procscope.api.process.ProcessTable;
/** The verdict of an {@link IdleHoldingRule} over a window of samples. */
public enum IdleHoldingVerdict {
    /** Idle while holding memory: worth a look at {@link Gpus#users(io.github.procscope.api.process.ProcessTable)}. */
    IDLE_HOLDING,
    /** Busy, or holding little memory. */
    NOT_IDLE_HOLDING,
    /** Too few samples with both utilization and memory figures (or the GPU reports neither). */
    INSUFFICIENT_DATA
}
