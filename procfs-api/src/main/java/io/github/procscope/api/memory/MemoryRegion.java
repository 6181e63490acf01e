package io.github.procscope.api.memory;

import io.github.procscope.api.core.DeviceNumber;

import java.util.Objects;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * One region (VMA) of a process's address space: one line of {@code /proc/PID/maps}, with the
 * counters of {@code /proc/PID/smaps} when they were read.
 *
 * <p>Addresses are unsigned 64-bit values held in a {@code long}: a region high in the address space
 * (such as {@code [vsyscall]} at {@code ffffffffff600000}) reads as negative when printed as a signed
 * number. Use {@link Long#toHexString(long)} or {@link Long#compareUnsigned(long, long)}.
 *
 * @param startAddress the first address of the region (inclusive)
 * @param endAddress   the address just past the region (exclusive)
 * @param permissions  read, write, execute, shared/private
 * @param offsetBytes  for a file mapping, where in the file the region starts; 0 for anonymous memory
 * @param device       the device of the mapped file's file system ({@code 00:00} for anonymous memory)
 * @param inode        the mapped file's inode number; 0 for anonymous memory. Inode numbers are unsigned 64-bit
 *                     (some file systems use the top bits): one at or above 2^63 is a negative {@code long}, read
 *                     with {@link Long#toUnsignedString(long)}
 * @param pathname     the path column as the kernel prints it, unescaped and without the
 *                     {@code " (deleted)"} mark: the file's path, or a kernel name such as {@code [heap]};
 *                     empty for unnamed anonymous memory. The kernel escapes only the newline in a path
 *                     (as {@code \012}), so a path that itself contains that four-character text reads
 *                     back as a newline.
 * @param kind         what the region holds, derived from the path column
 * @param deleted      whether the kernel marked the path {@code " (deleted)"}: the mapped file has been
 *                     unlinked (or it is shared memory, which the kernel keeps on an unlinked file)
 * @param usage        the region's counters from {@code /proc/PID/smaps}; present only when the maps were
 *                     read with {@link ProcessMemory#smaps(long)}
 */
public record MemoryRegion(
        long startAddress,
        long endAddress,
        RegionPermissions permissions,
        long offsetBytes,
        DeviceNumber device,
        long inode,
        Optional<String> pathname,
        RegionKind kind,
        boolean deleted,
        Optional<RegionUsage> usage) {

    /**
     * Checks the components.
     * @throws IllegalArgumentException if the end lies before the start (unsigned)
     */
    public MemoryRegion {
        if (Long.compareUnsigned(endAddress, startAddress) < 0) {
            throw new IllegalArgumentException("region end " + Long.toHexString(endAddress) + " lies before its start "
                    + Long.toHexString(startAddress));
        }
        Objects.requireNonNull(permissions, "permissions");
        Objects.requireNonNull(device, "device");
        Objects.requireNonNull(pathname, "pathname");
        Objects.requireNonNull(kind, "kind");
        Objects.requireNonNull(usage, "usage");
    }

    /** {@return the size of the region in bytes: {@code endAddress - startAddress} (what {@code pmap} calls Kbytes)} */
    public long sizeBytes() {
        return endAddress - startAddress;
    }

    /** {@return the region's resident bytes ({@code Rss}), if its {@link #usage()} was read} */
    public OptionalLong rssBytes() {
        return usage.isPresent() ? OptionalLong.of(usage.get().counters().rssBytes()) : OptionalLong.empty();
    }

    /** {@return {@code start-end perms offset dev inode path}, the way {@code maps} prints the region} */
    @Override
    public String toString() {
        return Long.toHexString(startAddress) + "-" + Long.toHexString(endAddress) + " " + permissions + " "
                + Long.toHexString(offsetBytes) + " " + device + " " + Long.toUnsignedString(inode)
                + pathname.map(p -> " " + p).orElse("") + (deleted ? " (deleted)" : "");
    }
}
