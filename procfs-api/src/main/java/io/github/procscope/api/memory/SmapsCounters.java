package io.github.procscope.api.memory;

import java.util.Objects;
import java.util.OptionalLong;

/**
 * The memory counters the kernel prints for one region in {@code /proc/PID/smaps}, or for the whole
 * process in {@code /proc/PID/smaps_rollup}, converted from kB to bytes. Each component names the
 * line it comes from. Counters a kernel may not print are {@link OptionalLong}s, empty on kernels that
 * lack the line (the version that added it is given).
 *
 * @param rssBytes            {@code Rss}: resident in physical memory, shared pages counted in full
 * @param pssBytes            {@code Pss}: proportional set size, each resident page divided by the number
 *                            of processes mapping it
 * @param pssDirtyBytes       {@code Pss_Dirty} (Linux 6.0+): the dirty part of PSS
 * @param pssAnonBytes        {@code Pss_Anon} (Linux 5.8+, {@code smaps_rollup} only): PSS of anonymous pages
 * @param pssFileBytes        {@code Pss_File} (Linux 5.8+, {@code smaps_rollup} only): PSS of file pages
 * @param pssShmemBytes       {@code Pss_Shmem} (Linux 5.8+, {@code smaps_rollup} only): PSS of shared memory
 * @param sharedCleanBytes    {@code Shared_Clean}: resident, mapped by other processes too, unmodified
 * @param sharedDirtyBytes    {@code Shared_Dirty}: resident, mapped by other processes too, modified
 * @param privateCleanBytes   {@code Private_Clean}: resident, mapped by this process only, unmodified
 * @param privateDirtyBytes   {@code Private_Dirty}: resident, mapped by this process only, modified
 * @param referencedBytes     {@code Referenced}: marked as recently accessed
 * @param anonymousBytes      {@code Anonymous}: pages belonging to no file (including copy-on-write copies
 *                            of file pages)
 * @param ksmBytes            {@code KSM} (Linux 6.7+): pages merged by kernel samepage merging
 * @param lazyFreeBytes       {@code LazyFree} (Linux 4.12+): pages released with {@code MADV_FREE} that the
 *                            kernel may reclaim without writing them out
 * @param anonHugePagesBytes  {@code AnonHugePages}: anonymous memory backed by transparent huge pages
 * @param shmemPmdMappedBytes {@code ShmemPmdMapped} (Linux 4.8+): shared memory mapped with huge pages
 * @param filePmdMappedBytes  {@code FilePmdMapped} (Linux 5.4+): file pages mapped with huge pages
 * @param sharedHugetlbBytes  {@code Shared_Hugetlb} (Linux 4.4+): hugetlbfs pages shared with others
 *                            (not counted in RSS or PSS)
 * @param privateHugetlbBytes {@code Private_Hugetlb} (Linux 4.4+): private hugetlbfs pages (not counted in
 *                            RSS or PSS)
 * @param swapBytes           {@code Swap}: anonymous memory that is swapped out
 * @param swapPssBytes        {@code SwapPss} (Linux 4.3+): the proportional share of swapped-out memory
 * @param lockedBytes         {@code Locked}: memory locked in RAM ({@code mlock})
 */
public record SmapsCounters(
        long rssBytes,
        long pssBytes,
        OptionalLong pssDirtyBytes,
        OptionalLong pssAnonBytes,
        OptionalLong pssFileBytes,
        OptionalLong pssShmemBytes,
        long sharedCleanBytes,
        long sharedDirtyBytes,
        long privateCleanBytes,
        long privateDirtyBytes,
        long referencedBytes,
        long anonymousBytes,
        OptionalLong ksmBytes,
        OptionalLong lazyFreeBytes,
        long anonHugePagesBytes,
        OptionalLong shmemPmdMappedBytes,
        OptionalLong filePmdMappedBytes,
        OptionalLong sharedHugetlbBytes,
        OptionalLong privateHugetlbBytes,
        long swapBytes,
        OptionalLong swapPssBytes,
        long lockedBytes) {

    /** Counters that are all zero and all present, the neutral element of {@link #plus}. */
    public static final SmapsCounters ZERO = new SmapsCounters(0, 0, OptionalLong.of(0), OptionalLong.of(0),
            OptionalLong.of(0), OptionalLong.of(0), 0, 0, 0, 0, 0, 0, OptionalLong.of(0), OptionalLong.of(0), 0,
            OptionalLong.of(0), OptionalLong.of(0), OptionalLong.of(0), OptionalLong.of(0), 0, OptionalLong.of(0), 0);

    /**
     * Checks the components.
     * @throws IllegalArgumentException if a counter is negative
     */
    public SmapsCounters {
        requireSize("rss", rssBytes);
        requireSize("pss", pssBytes);
        requireSize("pssDirty", pssDirtyBytes);
        requireSize("pssAnon", pssAnonBytes);
        requireSize("pssFile", pssFileBytes);
        requireSize("pssShmem", pssShmemBytes);
        requireSize("sharedClean", sharedCleanBytes);
        requireSize("sharedDirty", sharedDirtyBytes);
        requireSize("privateClean", privateCleanBytes);
        requireSize("privateDirty", privateDirtyBytes);
        requireSize("referenced", referencedBytes);
        requireSize("anonymous", anonymousBytes);
        requireSize("ksm", ksmBytes);
        requireSize("lazyFree", lazyFreeBytes);
        requireSize("anonHugePages", anonHugePagesBytes);
        requireSize("shmemPmdMapped", shmemPmdMappedBytes);
        requireSize("filePmdMapped", filePmdMappedBytes);
        requireSize("sharedHugetlb", sharedHugetlbBytes);
        requireSize("privateHugetlb", privateHugetlbBytes);
        requireSize("swap", swapBytes);
        requireSize("swapPss", swapPssBytes);
        requireSize("locked", lockedBytes);
    }

    /**
     * {@return the unique set size, USS: {@code Private_Clean + Private_Dirty}, the resident memory that
     * only this process (or region) holds, freed when it exits}
     */
    public long ussBytes() {
        return privateCleanBytes + privateDirtyBytes;
    }

    /**
     * {@return the dirty resident memory, {@code Shared_Dirty + Private_Dirty}: what {@code pmap -x} shows
     * as Dirty, written to but not yet to its file or swap}
     */
    public long dirtyBytes() {
        return sharedDirtyBytes + privateDirtyBytes;
    }

    /**
     * Adds two sets of counters, as the kernel does for {@code smaps_rollup}. An optional counter is present
     * in the sum only if it is present in both.
     *
     * @param other the counters to add
     * @return the sum
     */
    public SmapsCounters plus(SmapsCounters other) {
        Objects.requireNonNull(other, "other");
        return new SmapsCounters(
                rssBytes + other.rssBytes,
                pssBytes + other.pssBytes,
                plus(pssDirtyBytes, other.pssDirtyBytes),
                plus(pssAnonBytes, other.pssAnonBytes),
                plus(pssFileBytes, other.pssFileBytes),
                plus(pssShmemBytes, other.pssShmemBytes),
                sharedCleanBytes + other.sharedCleanBytes,
                sharedDirtyBytes + other.sharedDirtyBytes,
                privateCleanBytes + other.privateCleanBytes,
                privateDirtyBytes + other.privateDirtyBytes,
                referencedBytes + other.referencedBytes,
                anonymousBytes + other.anonymousBytes,
                plus(ksmBytes, other.ksmBytes),
                plus(lazyFreeBytes, other.lazyFreeBytes),
                anonHugePagesBytes + other.anonHugePagesBytes,
                plus(shmemPmdMappedBytes, other.shmemPmdMappedBytes),
                plus(filePmdMappedBytes, other.filePmdMappedBytes),
                plus(sharedHugetlbBytes, other.sharedHugetlbBytes),
                plus(privateHugetlbBytes, other.privateHugetlbBytes),
                swapBytes + other.swapBytes,
                plus(swapPssBytes, other.swapPssBytes),
                lockedBytes + other.lockedBytes);
    }

    private static OptionalLong plus(OptionalLong a, OptionalLong b) {
        return a.isPresent() && b.isPresent() ? OptionalLong.of(a.getAsLong() + b.getAsLong()) : OptionalLong.empty();
    }

    private static void requireSize(String name, long v) {
        if (v < 0) {
            throw new IllegalArgumentException(name + " must not be negative: " + v);
        }
    }

    private static void requireSize(String name, OptionalLong v) {
        Objects.requireNonNull(v, name);
        if (v.isPresent()) {
            requireSize(name, v.getAsLong());
        }
    }
}
