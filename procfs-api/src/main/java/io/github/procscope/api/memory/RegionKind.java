package io.github.procscope.api.memory;

/**
 * What a region of an address space holds, from its path column in {@code /proc/PID/maps}.
 */
public enum RegionKind {
    /** A mapped file: a program, a shared library, a data file ({@code mmap} of a file). */
    FILE,
    /** Anonymous memory without a name: {@code malloc} arenas, a JVM heap, thread stacks, private {@code mmap}s. */
    ANONYMOUS,
    /** Anonymous memory named with {@code prctl(PR_SET_VMA_ANON_NAME)}: {@code [anon:NAME]} (Linux 5.17+). */
    NAMED_ANONYMOUS,
    /** The program break area grown by {@code brk}: {@code [heap]}. */
    HEAP,
    /** The main thread's stack, {@code [stack]} (and {@code [stack:TID]} of other threads on Linux 3.4 to 4.4). */
    STACK,
    /** The virtual dynamic shared object the kernel maps into every process: {@code [vdso]}. */
    VDSO,
    /** Kernel data the vDSO reads: {@code [vvar]}, {@code [vvar_vclock]}. */
    VVAR,
    /**
     * The legacy x86-64 system-call page {@code [vsyscall]}. It lies in kernel space and is not counted in
     * the process's VSZ, though {@code maps} and {@code pmap} list it.
     */
    VSYSCALL,
    /**
     * Shared memory: shared anonymous mappings ({@code /dev/zero (deleted)}), System V segments
     * ({@code /SYSV0000002a (deleted)}), {@code memfd_create} files ({@code /memfd:NAME}), POSIX shared memory
     * under {@code /dev/shm}, and named shared anonymous memory {@code [anon_shmem:NAME]}.
     */
    SHARED_MEMORY,
    /** A mapped device file under {@code /dev} other than shared memory, such as {@code /dev/nvidia0}. */
    DEVICE,
    /**
     * Another region the kernel names itself: {@code [uprobes]}, {@code [vectors]} and {@code [sigpage]} on
     * ARM, or a mapping of a file without a path such as {@code anon_inode:[perf_event]}.
     */
    SPECIAL
}
