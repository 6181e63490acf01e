package io.github.procscope.linux.proc;

import java.nio.file.Path;
import java.time.Instant;

/**
 * A planted violation for {@code ArchitectureTest}: a reader beside the process table that opens the live
 * {@code /proc} itself instead of being handed a table by the platform. Never called.
 */
final class PlantedFactoryCall {
    private PlantedFactoryCall() {
    }

    static Instant liveBootTime() {
        return LinuxProcfs.at(Path.of("/proc")).bootTime();
    }
}
