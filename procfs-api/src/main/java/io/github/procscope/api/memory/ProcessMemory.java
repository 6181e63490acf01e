package io.github.procscope.api.memory;

import io.github.procscope.api.core.NoSuchProcessException;
import io.github.procscope.api.core.ProcessAccessDeniedException;
import io.github.procscope.api.core.ProcessKey;

/**
 * The memory of processes, as {@code pmap} and {@code ps} show it: regions of the address space and what
 * each holds in physical memory. Implementations are thread-safe and hold no process data between calls:
 * every call reads the kernel anew, each file once.
 *
 * <pre>{@code
 * ProcessMemory memory = Procscope.system().memory();
 * MemoryTotals t = memory.totals(pid);
 * System.out.printf("VSZ %d  RSS %d  PSS %d  USS %d%n", t.vszBytes(), t.rssBytes(), t.pssBytes(), t.ussBytes());
 * for (MemoryRegion r : memory.smaps(pid).regions()) {
 *     System.out.println(r + " rss=" + r.rssBytes().orElse(0));
 * }
 * }</pre>
 *
 * <p>Errors: a pid at or below 0 is refused with {@link IllegalArgumentException}; a process that is gone,
 * or that exits while it is read, raises {@link NoSuchProcessException} (never a partial list); a process
 * whose memory this user may not read (another user's, without {@code CAP_SYS_PTRACE}) raises
 * {@link ProcessAccessDeniedException}.
 */
public interface ProcessMemory {

    /**
     * Reads the regions of a process without their counters ({@code /proc/PID/maps}), the cheap view.
     *
     * @param pid a process id
     * @return its regions
     * @throws NoSuchProcessException       if it does not exist or exits while being read
     * @throws ProcessAccessDeniedException if the kernel refuses to show them to this user
     */
    MemoryMaps maps(long pid);

    /**
     * Reads the regions of a process with each one's counters ({@code /proc/PID/smaps}). The kernel walks
     * every page table to produce it, which costs time in proportion to the process's resident memory.
     *
     * @param pid a process id
     * @return its regions, each with {@link MemoryRegion#usage()} present
     * @throws NoSuchProcessException       if it does not exist or exits while being read
     * @throws ProcessAccessDeniedException if the kernel refuses to show them to this user
     */
    MemoryMaps smaps(long pid);

    /**
     * Reads the regions of a process with each one's counters, as {@link #smaps(long)} does, handing each to
     * {@code action} as it is read instead of keeping them: memory stays small however many regions the process
     * has (the {@code smaps} of a process with 100,000 mappings is about 100 MB of text and its records tens of
     * MB). The regions come in address order. Whether the process ran to the end of the read is known only after
     * the last one: if it exited meanwhile, {@link NoSuchProcessException} is thrown after some regions were
     * handed on, and those are void. A caller that must not act on a partial list keeps what it needs of each
     * region and acts once this returns.
     *
     * @param pid    a process id
     * @param action what to do with each region, which has {@link MemoryRegion#usage()} present
     * @throws NoSuchProcessException       if it does not exist or exits while being read
     * @throws ProcessAccessDeniedException if the kernel refuses to show them to this user
     */
    default void forEachRegion(long pid, java.util.function.Consumer<? super MemoryRegion> action) {
        java.util.Objects.requireNonNull(action, "action");
        smaps(pid).regions().forEach(action);
    }

    /**
     * Reads a process's totals: {@code /proc/PID/smaps_rollup} where the kernel has it (Linux 4.14+),
     * otherwise the regions of {@code /proc/PID/smaps} summed; VSZ from {@code /proc/PID/stat}.
     *
     * @param pid a process id
     * @return its totals; {@link MemoryTotals#source()} says which file they came from
     * @throws NoSuchProcessException       if it does not exist or exits while being read
     * @throws ProcessAccessDeniedException if the kernel refuses to show them to this user
     */
    MemoryTotals totals(long pid);

    /**
     * {@return its identity, read now, in the form {@link io.github.procscope.api.process.ProcessTable#key(long)}
     * reads: on the live system's {@code /proc}, exact (with the pidfs inode of a pidfd, Linux 6.9 and later), so
     * a key from here is safe for an action; under another root, (pid, start time) from {@code /proc/PID/stat}}
     *
     * @param pid a process id
     * @throws NoSuchProcessException   if it does not exist
     * @throws IllegalArgumentException if the pid is out of range
     */
    ProcessKey key(long pid);

    /**
     * As {@link #maps(long)}, then checks that the pid still names the process {@code key} names.
     *
     * @param key a process identity
     * @return its regions
     * @throws NoSuchProcessException       if it is gone, exits while being read, or its pid now names another
     *                                      process
     * @throws ProcessAccessDeniedException if the kernel refuses to show them to this user
     */
    default MemoryMaps maps(ProcessKey key) {
        MemoryMaps m = maps(key.pid());
        key.requireSameAs(key(key.pid()));
        return m;
    }

    /**
     * As {@link #smaps(long)}, then checks that the pid still names the process {@code key} names.
     *
     * @param key a process identity
     * @return its regions with their counters
     * @throws NoSuchProcessException       if it is gone, exits while being read, or its pid now names another
     *                                      process
     * @throws ProcessAccessDeniedException if the kernel refuses to show them to this user
     */
    default MemoryMaps smaps(ProcessKey key) {
        MemoryMaps m = smaps(key.pid());
        key.requireSameAs(key(key.pid()));
        return m;
    }

    /**
     * As {@link #totals(long)}, then checks that the pid still names the process {@code key} names.
     *
     * @param key a process identity
     * @return its totals
     * @throws NoSuchProcessException       if it is gone, exits while being read, or its pid now names another
     *                                      process
     * @throws ProcessAccessDeniedException if the kernel refuses to show them to this user
     */
    default MemoryTotals totals(ProcessKey key) {
        MemoryTotals t = totals(key.pid());
        key.requireSameAs(key(key.pid()));
        return t;
    }
}
