package io.github.procscope.api.process;

import io.github.procscope.api.signals.SignalMasks;
import java.util.List;
import java.util.Objects;
import java.util.OptionalLong;

/**
 * The facts of {@code /proc/PID/status} (or {@code /proc/PID/task/TID/status}), typed and in units
 * (kB became bytes). Lines that a kernel does not print are empty; memory lines are absent for
 * kernel threads and zombies.
 *
 * @param name                        {@code Name}: the command name, unescaped (the kernel escapes
 *                                    {@code \n} and {@code \\} here)
 * @param state                       {@code State}
 * @param tgid                        {@code Tgid}: thread group id, the pid of the process
 * @param pid                         {@code Pid}: the task's own id (the thread id for a thread)
 * @param ppid                        {@code PPid}: parent's pid
 * @param tracerPid                   {@code TracerPid}: pid of the tracing debugger; empty when not traced
 * @param uid                         {@code Uid}: real, effective, saved and file-system user ids
 * @param gid                         {@code Gid}: real, effective, saved and file-system group ids
 * @param fdSize                      {@code FDSize}: slots currently allocated in the file descriptor
 *                                    table; empty for zombies
 * @param groups                      {@code Groups}: supplementary group ids
 * @param nsTgid                      {@code NStgid}: thread group id in each nested pid namespace,
 *                                    outermost first; empty before Linux 4.1
 * @param nsPid                       {@code NSpid}: the pid in each nested pid namespace, outermost first
 *                                    (the last is the pid inside the process's own container)
 * @param nsPgid                      {@code NSpgid}: process group id per namespace
 * @param nsSid                       {@code NSsid}: session id per namespace
 * @param memory                      the {@code Vm*}, {@code Rss*} and {@code HugetlbPages} lines
 * @param threads                     {@code Threads}: number of threads
 * @param signalsQueued               {@code SigQ} (first half): signals queued for the real user id
 * @param signalQueueLimit            {@code SigQ} (second half): the {@code RLIMIT_SIGPENDING} limit
 * @param signals                     {@code SigPnd}, {@code ShdPnd}, {@code SigBlk}, {@code SigIgn}, {@code SigCgt}
 * @param cpusAllowed                 {@code Cpus_allowed_list}: CPUs the task may run on, ascending
 * @param memsAllowed                 {@code Mems_allowed_list}: memory nodes the task may use, ascending
 * @param voluntaryContextSwitches    {@code voluntary_ctxt_switches}: times the task gave up the CPU
 *                                    (to wait for I/O, a lock, a sleep)
 * @param nonvoluntaryContextSwitches {@code nonvoluntary_ctxt_switches}: times it was preempted
 */
public record ProcessStatus(
        String name,
        ProcessState state,
        long tgid,
        long pid,
        long ppid,
        OptionalLong tracerPid,
        Ids uid,
        Ids gid,
        OptionalLong fdSize,
        List<Long> groups,
        List<Long> nsTgid,
        List<Long> nsPid,
        List<Long> nsPgid,
        List<Long> nsSid,
        VmStats memory,
        int threads,
        OptionalLong signalsQueued,
        OptionalLong signalQueueLimit,
        SignalMasks signals,
        List<Integer> cpusAllowed,
        List<Integer> memsAllowed,
        OptionalLong voluntaryContextSwitches,
        OptionalLong nonvoluntaryContextSwitches) {

    /** Checks components and copies the lists. */
    public ProcessStatus {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(state, "state");
        Objects.requireNonNull(tracerPid, "tracerPid");
        Objects.requireNonNull(uid, "uid");
        Objects.requireNonNull(gid, "gid");
        Objects.requireNonNull(fdSize, "fdSize");
        groups = List.copyOf(groups);
        nsTgid = List.copyOf(nsTgid);
        nsPid = List.copyOf(nsPid);
        nsPgid = List.copyOf(nsPgid);
        nsSid = List.copyOf(nsSid);
        Objects.requireNonNull(memory, "memory");
        Objects.requireNonNull(signalsQueued, "signalsQueued");
        Objects.requireNonNull(signalQueueLimit, "signalQueueLimit");
        Objects.requireNonNull(signals, "signals");
        cpusAllowed = List.copyOf(cpusAllowed);
        memsAllowed = List.copyOf(memsAllowed);
        Objects.requireNonNull(voluntaryContextSwitches, "voluntaryContextSwitches");
        Objects.requireNonNull(nonvoluntaryContextSwitches, "nonvoluntaryContextSwitches");
    }

    /**
     * {@return the pid as seen inside the process's own (innermost) pid namespace, or the pid itself when
     * the kernel does not print {@code NSpid}}
     */
    public long innermostPid() {
        return nsPid.isEmpty() ? pid : nsPid.get(nsPid.size() - 1);
    }

    /**
     * The four ids of a {@code Uid:} or {@code Gid:} line.
     *
     * @param real       real id: who started the process
     * @param effective  effective id: whose permissions it has
     * @param saved      saved set-id
     * @param filesystem file-system id, used for file access checks
     */
    public record Ids(long real, long effective, long saved, long filesystem) {
    }

    /**
     * The memory lines of {@code /proc/PID/status}, in bytes. Every one is empty for kernel threads and
     * zombies (which have no address space), and on kernels that do not print it.
     *
     * @param peakBytes       {@code VmPeak}: largest virtual size so far
     * @param sizeBytes       {@code VmSize}: virtual size (VSZ)
     * @param lockedBytes     {@code VmLck}: locked memory
     * @param pinnedBytes     {@code VmPin}: pinned memory (since 3.2)
     * @param hwmBytes        {@code VmHWM}: peak resident set size ("high water mark")
     * @param rssBytes        {@code VmRSS}: resident set size, the sum of the three below
     * @param rssAnonBytes    {@code RssAnon}: resident anonymous memory (heap, stacks; since 4.5)
     * @param rssFileBytes    {@code RssFile}: resident file mappings (code, libraries, mapped files)
     * @param rssShmemBytes   {@code RssShmem}: resident shared memory (System V, tmpfs, shared anonymous)
     * @param dataBytes       {@code VmData}: data segment and heap
     * @param stackBytes      {@code VmStk}: main stack
     * @param textBytes       {@code VmExe}: program text
     * @param libBytes        {@code VmLib}: shared library code
     * @param pageTableBytes  {@code VmPTE}: page tables
     * @param swapBytes       {@code VmSwap}: anonymous memory swapped out (shared memory excluded)
     * @param hugetlbBytes    {@code HugetlbPages}: hugetlb memory (since 4.4)
     */
    public record VmStats(
            OptionalLong peakBytes,
            OptionalLong sizeBytes,
            OptionalLong lockedBytes,
            OptionalLong pinnedBytes,
            OptionalLong hwmBytes,
            OptionalLong rssBytes,
            OptionalLong rssAnonBytes,
            OptionalLong rssFileBytes,
            OptionalLong rssShmemBytes,
            OptionalLong dataBytes,
            OptionalLong stackBytes,
            OptionalLong textBytes,
            OptionalLong libBytes,
            OptionalLong pageTableBytes,
            OptionalLong swapBytes,
            OptionalLong hugetlbBytes) {

        /** Checks that no component is null. */
        public VmStats {
            Objects.requireNonNull(peakBytes, "peakBytes");
            Objects.requireNonNull(sizeBytes, "sizeBytes");
            Objects.requireNonNull(lockedBytes, "lockedBytes");
            Objects.requireNonNull(pinnedBytes, "pinnedBytes");
            Objects.requireNonNull(hwmBytes, "hwmBytes");
            Objects.requireNonNull(rssBytes, "rssBytes");
            Objects.requireNonNull(rssAnonBytes, "rssAnonBytes");
            Objects.requireNonNull(rssFileBytes, "rssFileBytes");
            Objects.requireNonNull(rssShmemBytes, "rssShmemBytes");
            Objects.requireNonNull(dataBytes, "dataBytes");
            Objects.requireNonNull(stackBytes, "stackBytes");
            Objects.requireNonNull(textBytes, "textBytes");
            Objects.requireNonNull(libBytes, "libBytes");
            Objects.requireNonNull(pageTableBytes, "pageTableBytes");
            Objects.requireNonNull(swapBytes, "swapBytes");
            Objects.requireNonNull(hugetlbBytes, "hugetlbBytes");
        }

        /** {@return stats with every line absent, as for a kernel thread} */
        public static VmStats none() {
            OptionalLong e = OptionalLong.empty();
            return new VmStats(e, e, e, e, e, e, e, e, e, e, e, e, e, e, e, e);
        }
    }
}
