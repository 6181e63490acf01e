package io.github.procscope.api.files;

import java.util.Collections;
import java.util.EnumSet;
import java.util.Objects;
import java.util.Set;

/**
 * The flags of an open file: the {@code flags:} line of {@code /proc/PID/fdinfo/FD}, an octal number,
 * decoded with this machine's architecture's values of the {@code O_*} constants.
 *
 * @param bits        the value exactly as the kernel printed it
 * @param accessMode  the access mode ({@code O_ACCMODE} bits)
 * @param flags       the status flags that are set
 * @param unknownBits bits that are set but name no flag known here (0 normally; kernel-internal flags
 *                    such as {@code FMODE_*} never appear in this line)
 */
public record OpenFlags(int bits, AccessMode accessMode, Set<OpenFlag> flags, int unknownBits) {
    /** Copies the set. */
    public OpenFlags {
        Objects.requireNonNull(accessMode, "accessMode");
        Set<OpenFlag> copy = EnumSet.noneOf(OpenFlag.class);
        copy.addAll(flags);
        flags = Collections.unmodifiableSet(copy);
    }

    /**
     * {@return whether it is set}
     *
     * @param flag a flag
     */
    public boolean has(OpenFlag flag) {
        return flags.contains(Objects.requireNonNull(flag, "flag"));
    }

    /** {@return the bits in octal with a leading 0, as {@code fdinfo} prints them, e.g. {@code 02100002}} */
    public String octal() {
        return "0" + Integer.toOctalString(bits);
    }

    /** {@return the access mode and flags, e.g. {@code READ_WRITE [O_APPEND, O_CLOEXEC] (02102002)}} */
    @Override
    public String toString() {
        return accessMode + " " + flags + " (" + octal() + ")";
    }
}
