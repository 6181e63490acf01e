package io.github.procscope.linux.sys;

import io.github.procscope.linux.proc.LinuxProcfs;

/**
 * A planted violation for {@code ArchitectureTest}: a class of the ground floor that reaches a reader above it.
 * It exists only in the test sources, so that the floor rules are shown to fail on it.
 */
final class PlantedUpwardImport {
    private PlantedUpwardImport() {
    }

    static String rootOf(LinuxProcfs procfs) {
        return procfs.root().toString();
    }
}
