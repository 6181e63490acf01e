package io.github.procscope.api.job;

import io.github.procscope.api.gpu.Gpus;

import java.util.Objects;
import java.util.Optional;

/**
 * What a {@link JobTree} reads per process beyond {@code stat} and {@code statm}. Each costs one more read
 * per process and refresh.
 *
 * @param pss     whether to read each process's proportional set size ({@code /proc/PID/smaps_rollup}), which
 *                costs the kernel a walk of the page tables
 * @param openFds whether to count each process's open file descriptors ({@code /proc/PID/fd})
 * @param gpus    the GPUs whose per-process memory is joined in; empty for none. The tree does not close them
 */
public record JobTreeOptions(boolean pss, boolean openFds, Optional<Gpus> gpus) {
    /** Checks the components. */
    public JobTreeOptions {
        Objects.requireNonNull(gpus, "gpus");
    }

    /** {@return stat and statm only: RSS, CPU and threads} */
    public static JobTreeOptions basic() {
        return new JobTreeOptions(false, false, Optional.empty());
    }

    /** {@return these options, reading PSS too} */
    public JobTreeOptions withPss() {
        return new JobTreeOptions(true, openFds, gpus);
    }

    /** {@return these options, counting open file descriptors too} */
    public JobTreeOptions withOpenFds() {
        return new JobTreeOptions(pss, true, gpus);
    }

    /**
     * {@return these options, with GPU memory per GPU}
     *
     * @param gpus the GPUs to join (not closed by the tree)
     */
    public JobTreeOptions withGpus(Gpus gpus) {
        return new JobTreeOptions(pss, openFds, Optional.of(gpus));
    }
}
