package io.github.procscope.api.diagnose;


import java.util.List;

/**
 * The kernel's log ({@code /dev/kmsg}, what {@code dmesg} shows), read for the traces that only the
 * kernel leaves: OOM kills. Reading it needs {@code CAP_SYSLOG} where {@code kernel.dmesg_restrict} is 1
 * (the default of most distributions); without it every method raises
 * {@link KernelLogUnavailableException}.
 */
public interface KernelLog {
    /**
     * {@return every OOM kill still in the kernel's ring buffer, oldest first (the buffer is finite: old
     * kills scroll out)}
     *
     * @throws KernelLogUnavailableException if the log cannot be read, with the reason
     */
    List<OomKill> oomKills();
}
