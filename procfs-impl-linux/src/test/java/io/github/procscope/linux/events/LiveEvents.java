package io.github.procscope.linux.events;

import io.github.procscope.api.diagnose.KernelLog;
import io.github.procscope.linux.proc.LinuxKernelLog;
import io.github.procscope.linux.proc.LinuxProcfs;
import io.github.procscope.linux.proc.LinuxSystemResources;

import java.nio.file.Path;
import java.util.function.Supplier;

/** Events of the live system, wired as the platform wires them: this machine's kernel log and cgroup mounts. */
final class LiveEvents {
    private LiveEvents() {
    }

    /** @return events read through that table, OOM kills looked up in {@code /dev/kmsg} */
    static LinuxProcessEvents of(LinuxProcfs procfs) {
        return of(procfs, () -> LinuxKernelLog.at(Path.of("/dev/kmsg"), procfs.bootTime()));
    }

    /** @return events read through that table, OOM kills looked up in that log */
    static LinuxProcessEvents of(LinuxProcfs procfs, Supplier<? extends KernelLog> kernelLog) {
        return LinuxProcessEvents.of(procfs, kernelLog,
                () -> LinuxSystemResources.at(Path.of("/proc"), Path.of("/sys")));
    }
}
