/**
 * NVIDIA NVML through JNA: the GPU implementation of {@code io.github.procscope.api}.
 *
 * <p>Only {@code io.github.procscope.nvml} is exported (the {@code NvmlGpus} entry point and
 * {@code DeviceFileScanner}); the raw binding and the wrapper are package-private in it. The package is
 * opened to JNA alone, which reads and writes the fields of the {@code nvml.h} structures, and creates
 * structures, by reflection (a structure with a non-public constructor needs the deep access). The API
 * module is required transitively: the public types here take and return its types.
 */
@SuppressWarnings("requires-automatic") // JNA's jar is an automatic module: it names itself in its manifest
module io.github.procscope.nvml {
    requires transitive io.github.procscope.api;
    requires com.sun.jna;

    exports io.github.procscope.nvml;
    opens io.github.procscope.nvml to com.sun.jna;

    provides io.github.procscope.api.GpusProvider with io.github.procscope.nvml.NvmlGpusProvider;
}
