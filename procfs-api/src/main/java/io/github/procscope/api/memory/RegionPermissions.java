package io.github.procscope.api.memory;

/**
 * The access rights of a region: the {@code perms} column of {@code /proc/PID/maps}, four characters
 * such as {@code r-xp}.
 *
 * @param read    the region may be read ({@code r})
 * @param write   the region may be written ({@code w})
 * @param execute the region may be executed ({@code x})
 * @param shared  the mapping is shared ({@code s}): writes reach the file or the other sharers; when
 *                false it is private ({@code p}, copy-on-write)
 */
public record RegionPermissions(boolean read, boolean write, boolean execute, boolean shared) {
    /** {@return the four characters as the kernel prints them, e.g. {@code rw-p}} */
    @Override
    public String toString() {
        return new String(new char[] {read ? 'r' : '-', write ? 'w' : '-', execute ? 'x' : '-', shared ? 's' : 'p'});
    }
}
