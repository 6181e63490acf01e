package io.github.procscope.api.files;

import io.github.procscope.api.core.DeviceNumber;

import java.util.Objects;
import java.util.Optional;

/**
 * The space deleted-but-open files hold on one file system: the part of {@code df}'s "used" that
 * {@code du} cannot find. Each file counts once, however many descriptors hold it.
 *
 * @param device         the file system's device ({@code st_dev} of the files)
 * @param mountPoint     where it is mounted, from {@code /proc/self/mountinfo}; empty when no mount of this
 *                       device is visible (the kernel's internal mounts, such as the one behind
 *                       {@code memfd_create} files)
 * @param fsType         its file system type ({@code ext4}, {@code tmpfs}, ...), when the mount is visible
 * @param files          how many distinct deleted files are held open on it
 * @param sizeBytes      the sum of their sizes
 * @param allocatedBytes the sum of their allocated blocks in bytes: the space that comes back when they close
 */
public record DeletedSpace(DeviceNumber device, Optional<String> mountPoint, Optional<String> fsType, int files,
                           long sizeBytes, long allocatedBytes) {
    /**
     * Checks the components.
     * @throws IllegalArgumentException if a count is negative
     */
    public DeletedSpace {
        Objects.requireNonNull(device, "device");
        Objects.requireNonNull(mountPoint, "mountPoint");
        Objects.requireNonNull(fsType, "fsType");
        if (files < 0 || sizeBytes < 0 || allocatedBytes < 0) {
            throw new IllegalArgumentException("counts must not be negative");
        }
    }
}
