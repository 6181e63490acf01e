package io.github.procscope.api.process;

import io.github.procscope.api.signals.Signal;
import io.github.procscope.api.signals.SignalSet;
import java.time.Duration;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.OptionalLong;

/**
 * Every field of {@code /proc/PID/stat} (or {@code /proc/PID/task/TID/stat}), typed and in units:
 * clock ticks became {@link Duration}s, pages became bytes. Field numbers are those of
 * {@code proc(5)}. Fields added after Linux 2.6.18 are optional and empty on kernels that lack them;
 * addresses are empty where the kernel prints 0 (kernel threads, zombies, or a reader without
 * {@code ptrace} access to the process).
 *
 * <p>Numbers keep the kernel's whole range. Tick counts are exact durations up to 2^64-1 ticks. Addresses, the
 * flags word, the signal masks and {@code wchan} are unsigned 64-bit values held as the {@code long} with the same
 * bits: one at or above 2^63 is a negative {@code long} (read it with {@link Long#toUnsignedString(long)},
 * {@link Long#toHexString(long)}, {@link Long#compareUnsigned(long, long)}). Counts and sizes are at most 2^63-1:
 * a file with more is refused as malformed, naming the field, rather than read as a negative or wrapped number.
 *
 * @param pid                    (1) process id, or thread id for a task
 * @param comm                   (2) the command name, up to 15 bytes, exactly as the kernel holds it: it
 *                               may contain spaces, parentheses and even newlines
 * @param state                  (3) scheduling state
 * @param ppid                   (4) parent's pid; 0 for the init process and kernel threads of PID 0
 * @param pgrp                   (5) process group id; 0 when the kernel has none for it (it prints -1
 *                               for a task past the point of exit, read as 0 here)
 * @param session                (6) session id; 0 when the kernel has none for it (-1 read as 0, as for
 *                               pgrp)
 * @param ttyNr                  (7) controlling terminal as a device number (major in bits 8-15 and
 *                               20-31, minor in bits 0-7 and 12-19); 0 when there is none
 * @param terminalProcessGroup   (8) foreground process group of the controlling terminal; empty when
 *                               there is no terminal (the kernel prints -1)
 * @param flags                  (9) kernel flags word ({@code PF_*} in {@code linux/sched.h})
 * @param minorFaults            (10) page faults that needed no disk read
 * @param childMinorFaults       (11) minor faults of waited-for children
 * @param majorFaults            (12) page faults that read from disk
 * @param childMajorFaults       (13) major faults of waited-for children
 * @param userTime               (14) CPU time in user mode, guest time included
 * @param systemTime             (15) CPU time in kernel mode
 * @param childUserTime          (16) user time of waited-for children
 * @param childSystemTime        (17) system time of waited-for children
 * @param priority               (18) kernel priority: {@code nice + 20} for normal tasks, {@code -2 - rtPriority}
 *                               (negative) for real-time ones
 * @param nice                   (19) nice value, -20 (favoured) to 19
 * @param threads                (20) number of threads in the process
 * @param itRealValue            (21) jiffies before the next {@code SIGALRM}; always 0 since Linux 2.6.17
 * @param startTimeTicks         (22) start time in clock ticks after boot
 * @param vszBytes               (23) virtual memory size (VSZ): the address space reserved, in bytes
 * @param rssBytes               (24) resident set size (RSS): pages in physical memory, in bytes;
 *                               converted from pages with the system's page size. Since Linux 6.2 the
 *                               kernel prints a fast per-CPU approximation here; the exact figure that
 *                               {@code ps} shows is {@link ProcessStatm#residentBytes()}, which
 *                               {@link ProcessInfo#rssBytes()} uses
 * @param rssLimitBytes          (25) soft limit on RSS in bytes; empty when unlimited ({@code RLIM_INFINITY},
 *                               2^64-1) or 2^63 bytes or more, which {@code setrlimit} accepts but no address
 *                               space reaches
 * @param startCode              (26) address above which program text can run
 * @param endCode                (27) address below which program text can run
 * @param startStack             (28) address of the start (bottom) of the stack
 * @param kstkEsp                (29) current stack pointer as last saved
 * @param kstkEip                (30) current instruction pointer as last saved
 * @param signalPending          (31) pending signals, standard signals only (obsolete; prefer
 *                               {@link ProcessStatus#signals()})
 * @param signalBlocked          (32) blocked signals, standard signals only (obsolete)
 * @param signalIgnored          (33) ignored signals, standard signals only (obsolete)
 * @param signalCaught           (34) caught signals, standard signals only (obsolete)
 * @param wchan                  (35) 1 when the task waits in the kernel, 0 otherwise (an address on old kernels)
 * @param swappedPages           (36) not maintained; always 0
 * @param childSwappedPages      (37) not maintained; always 0
 * @param exitSignal             (38) signal sent to the parent when this task exits; empty for none
 *                               (threads report -1)
 * @param processor              (39) CPU the task last ran on
 * @param rtPriority             (40) real-time priority, 1 to 99 for real-time policies, 0 otherwise
 * @param policyNumber           (41) scheduling policy number ({@code SCHED_*}); see {@link #policy()}
 * @param blockIoDelay           (42) aggregated block I/O delay; since Linux 2.6.18
 * @param guestTime              (43) time spent running a virtual CPU for a guest; since 2.6.24
 * @param childGuestTime         (44) guest time of waited-for children; since 2.6.24
 * @param startData              (45) address above which initialized and uninitialized data are placed; since 3.3
 * @param endData                (46) address below which that data is placed; since 3.3
 * @param startBrk               (47) address above which the heap can grow with {@code brk}; since 3.3
 * @param argStart               (48) address above which the command-line arguments lie; since 3.5
 * @param argEnd                 (49) address below which the command-line arguments lie; since 3.5
 * @param envStart               (50) address above which the environment lies; since 3.5
 * @param envEnd                 (51) address below which the environment lies; since 3.5
 * @param exitCode               (52) the exit status in {@code waitpid(2)} form; since 3.5, and empty
 *                               when the reader may not see it or the task has not exited
 */
public record ProcessStat(
        long pid,
        String comm,
        ProcessState state,
        long ppid,
        long pgrp,
        long session,
        int ttyNr,
        OptionalLong terminalProcessGroup,
        long flags,
        long minorFaults,
        long childMinorFaults,
        long majorFaults,
        long childMajorFaults,
        Duration userTime,
        Duration systemTime,
        Duration childUserTime,
        Duration childSystemTime,
        long priority,
        int nice,
        int threads,
        long itRealValue,
        long startTimeTicks,
        long vszBytes,
        long rssBytes,
        OptionalLong rssLimitBytes,
        OptionalLong startCode,
        OptionalLong endCode,
        OptionalLong startStack,
        OptionalLong kstkEsp,
        OptionalLong kstkEip,
        SignalSet signalPending,
        SignalSet signalBlocked,
        SignalSet signalIgnored,
        SignalSet signalCaught,
        long wchan,
        long swappedPages,
        long childSwappedPages,
        Optional<Signal> exitSignal,
        int processor,
        int rtPriority,
        int policyNumber,
        Optional<Duration> blockIoDelay,
        Optional<Duration> guestTime,
        Optional<Duration> childGuestTime,
        OptionalLong startData,
        OptionalLong endData,
        OptionalLong startBrk,
        OptionalLong argStart,
        OptionalLong argEnd,
        OptionalLong envStart,
        OptionalLong envEnd,
        OptionalInt exitCode) {

    /** Checks that no component is null. */
    public ProcessStat {
        Objects.requireNonNull(comm, "comm");
        Objects.requireNonNull(state, "state");
        Objects.requireNonNull(terminalProcessGroup, "terminalProcessGroup");
        Objects.requireNonNull(userTime, "userTime");
        Objects.requireNonNull(systemTime, "systemTime");
        Objects.requireNonNull(childUserTime, "childUserTime");
        Objects.requireNonNull(childSystemTime, "childSystemTime");
        Objects.requireNonNull(rssLimitBytes, "rssLimitBytes");
        Objects.requireNonNull(startCode, "startCode");
        Objects.requireNonNull(endCode, "endCode");
        Objects.requireNonNull(startStack, "startStack");
        Objects.requireNonNull(kstkEsp, "kstkEsp");
        Objects.requireNonNull(kstkEip, "kstkEip");
        Objects.requireNonNull(signalPending, "signalPending");
        Objects.requireNonNull(signalBlocked, "signalBlocked");
        Objects.requireNonNull(signalIgnored, "signalIgnored");
        Objects.requireNonNull(signalCaught, "signalCaught");
        Objects.requireNonNull(exitSignal, "exitSignal");
        Objects.requireNonNull(blockIoDelay, "blockIoDelay");
        Objects.requireNonNull(guestTime, "guestTime");
        Objects.requireNonNull(childGuestTime, "childGuestTime");
        Objects.requireNonNull(startData, "startData");
        Objects.requireNonNull(endData, "endData");
        Objects.requireNonNull(startBrk, "startBrk");
        Objects.requireNonNull(argStart, "argStart");
        Objects.requireNonNull(argEnd, "argEnd");
        Objects.requireNonNull(envStart, "envStart");
        Objects.requireNonNull(envEnd, "envEnd");
        Objects.requireNonNull(exitCode, "exitCode");
    }

    /** {@return the scheduling policy, or empty for a policy number this library does not know} */
    public Optional<SchedulingPolicy> policy() {
        return SchedulingPolicy.fromNumber(policyNumber);
    }

    /** {@return user plus system CPU time of the task itself (children excluded)} */
    public Duration cpuTime() {
        return userTime.plus(systemTime);
    }

    /** {@return whether this is a kernel thread ({@code PF_KTHREAD} set in {@link #flags()})} */
    public boolean isKernelThread() {
        return (flags & 0x0020_0000L) != 0;
    }
}
