package io.github.procscope.linux.platform;

import io.github.procscope.api.PlatformProvider;
import io.github.procscope.api.Procscope;

import java.nio.file.Path;

/** Registers {@link LinuxProcscope} with {@link java.util.ServiceLoader}: the platform of {@link Procscope}. */
public final class LinuxPlatform implements PlatformProvider {
    /** Creates the provider (called by {@link java.util.ServiceLoader}). */
    public LinuxPlatform() {
    }

    @Override
    public Procscope open(Path procfsRoot, Path sysfsRoot) {
        return new LinuxProcscope(procfsRoot, sysfsRoot);
    }
}
