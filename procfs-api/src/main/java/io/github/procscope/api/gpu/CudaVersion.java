package io.github.procscope.api.gpu;

/**
 * The CUDA version the installed driver supports, as {@code nvidia-smi}'s "CUDA Version" shows it.
 *
 * @param major the major version (12 for CUDA 12.2)
 * @param minor the minor version (2 for CUDA 12.2)
 */
public record CudaVersion(int major, int minor) {
    /**
     * Checks the components.
     *
     * @throws IllegalArgumentException if a part is negative
     */
    public CudaVersion {
        if (major < 0 || minor < 0) {
            throw new IllegalArgumentException("CUDA version parts must not be negative: " + major + "." + minor);
        }
    }

    /**
     * {@return the version}
     *
     * @param nvmlValue the value of {@code nvmlSystemGetCudaDriverVersion}: {@code 1000 * major + 10 * minor}
     *                  (12020 for 12.2)
     * @throws IllegalArgumentException if the value is negative
     */
    public static CudaVersion fromNvml(int nvmlValue) {
        if (nvmlValue < 0) {
            throw new IllegalArgumentException("CUDA driver version must not be negative: " + nvmlValue);
        }
        return new CudaVersion(nvmlValue / 1000, (nvmlValue % 1000) / 10);
    }

    @Override
    public String toString() {
        return major + "." + minor;
    }
}
