package io.github.procscope.linux;

import io.github.procscope.api.diagnose.Doctor;
import io.github.procscope.api.diagnose.KernelLog;
import io.github.procscope.api.spi.DoctorProvider;
import io.github.procscope.api.spi.KernelLogProvider;
import io.github.procscope.linux.doctor.LinuxDoctor;

/** Registers {@link LinuxDoctor#system()} and {@link LinuxKernelLog#system()} with {@link java.util.ServiceLoader}. */
public final class LinuxDiagnosticsProviders implements DoctorProvider, KernelLogProvider {
    /** Creates the provider (called by {@link java.util.ServiceLoader}). */
    public LinuxDiagnosticsProviders() {
    }

    @Override
    public Doctor systemDoctor() {
        return LinuxDoctor.system();
    }

    @Override
    public KernelLog systemKernelLog() {
        return LinuxKernelLog.system();
    }
}
