package io.github.procscope.api.disk;

import io.github.procscope.api.core.DeviceNumber;

import java.util.List;
import java.util.Objects;
import java.util.Set;

/**
 * One mount: a line of {@code /proc/PID/mountinfo} ({@code proc(5)}), with the kernel's escapes
 * ({@code \040} space, {@code \011} tab, {@code \012} newline, {@code \134} backslash) undone.
 *
 * @param mountId        a unique id of the mount (reused after unmount)
 * @param parentId       the id of the parent mount (its own id for the root of the mount tree)
 * @param device         the file system's device number ({@code st_dev} of files on it)
 * @param root           the directory of the file system that forms the root of this mount ({@code /} unless
 *                       it is a bind mount of a subdirectory)
 * @param mountPoint     where it is mounted, relative to the reading process's root
 * @param mountOptions   the per-mount options ({@code rw}, {@code nosuid}, {@code relatime}, ...)
 * @param optionalFields the propagation fields ({@code shared:N}, {@code master:N},
 *                       {@code propagate_from:N}, {@code unbindable}), possibly none
 * @param fsType         the file system type ({@code ext4}, {@code tmpfs}, {@code fuse.sshfs}, ...)
 * @param source         the mount source: a device path, a server path, or a name such as {@code tmpfs}
 *                       or {@code none}
 * @param superOptions   the file system's own options ({@code rw}, {@code size=...}, {@code errors=...})
 */
public record MountInfo(
        int mountId,
        int parentId,
        DeviceNumber device,
        String root,
        String mountPoint,
        List<String> mountOptions,
        List<String> optionalFields,
        String fsType,
        String source,
        List<String> superOptions) {

    /**
     * Types of file systems that hold no user data: kernel interfaces and accounting, which {@code df} hides
     * unless asked with {@code -a}.
     */
    public static final Set<String> PSEUDO_TYPES = Set.of(
            "proc", "sysfs", "devpts", "cgroup", "cgroup2", "debugfs", "tracefs", "securityfs", "pstore",
            "bpf", "configfs", "fusectl", "mqueue", "autofs", "binfmt_misc", "rpc_pipefs", "nsfs", "efivarfs",
            "selinuxfs", "devfs", "kernfs", "ignore", "nfsd", "fuse.portal", "subfs");

    /** Copies the lists. */
    public MountInfo {
        Objects.requireNonNull(device, "device");
        Objects.requireNonNull(root, "root");
        Objects.requireNonNull(mountPoint, "mountPoint");
        mountOptions = List.copyOf(mountOptions);
        optionalFields = List.copyOf(optionalFields);
        Objects.requireNonNull(fsType, "fsType");
        Objects.requireNonNull(source, "source");
        superOptions = List.copyOf(superOptions);
    }

    /**
     * {@return whether this is a pseudo file system holding no user data (one of {@link #PSEUDO_TYPES}, or
     * type {@code none}), the mounts {@code df} hides by default}
     */
    public boolean isPseudo() {
        return PSEUDO_TYPES.contains(fsType) || "none".equals(fsType);
    }

    /** {@return whether the mount is read-only (the per-mount option {@code ro})} */
    public boolean isReadOnly() {
        return mountOptions.contains("ro");
    }
}
