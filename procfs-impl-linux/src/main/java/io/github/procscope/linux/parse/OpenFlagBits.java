package io.github.procscope.linux.parse;

import io.github.procscope.api.files.AccessMode;
import io.github.procscope.api.files.OpenFlag;
import io.github.procscope.api.files.OpenFlags;

import java.util.EnumMap;
import java.util.EnumSet;
import java.util.Map;
import java.util.Set;

/**
 * The values of the {@code O_*} open flags, which differ between architectures: the generic ones of
 * {@code include/uapi/asm-generic/fcntl.h} (x86, x86-64, RISC-V, LoongArch, s390, ...) and those of ARM and
 * AArch64 ({@code arch/arm64/include/uapi/asm/fcntl.h}), which move four of them. Decodes the octal
 * {@code flags:} of {@code /proc/PID/fdinfo/FD}.
 */
public final class OpenFlagBits {
    private static final int O_ACCMODE = 03;

    /** asm-generic/fcntl.h. */
    static final OpenFlagBits GENERIC = new OpenFlagBits(Map.ofEntries(
            Map.entry(OpenFlag.O_APPEND, 02000),
            Map.entry(OpenFlag.O_NONBLOCK, 04000),
            Map.entry(OpenFlag.O_DSYNC, 010000),
            Map.entry(OpenFlag.O_ASYNC, 020000),
            Map.entry(OpenFlag.O_DIRECT, 040000),
            Map.entry(OpenFlag.O_LARGEFILE, 0100000),
            Map.entry(OpenFlag.O_DIRECTORY, 0200000),
            Map.entry(OpenFlag.O_NOFOLLOW, 0400000),
            Map.entry(OpenFlag.O_NOATIME, 01000000),
            Map.entry(OpenFlag.O_CLOEXEC, 02000000),
            Map.entry(OpenFlag.O_SYNC, 04000000),
            Map.entry(OpenFlag.O_PATH, 010000000),
            Map.entry(OpenFlag.O_TMPFILE, 020000000)));

    /** arm and arm64: O_DIRECTORY, O_NOFOLLOW, O_DIRECT and O_LARGEFILE differ. */
    static final OpenFlagBits ARM = new OpenFlagBits(Map.ofEntries(
            Map.entry(OpenFlag.O_APPEND, 02000),
            Map.entry(OpenFlag.O_NONBLOCK, 04000),
            Map.entry(OpenFlag.O_DSYNC, 010000),
            Map.entry(OpenFlag.O_ASYNC, 020000),
            Map.entry(OpenFlag.O_DIRECTORY, 040000),
            Map.entry(OpenFlag.O_NOFOLLOW, 0100000),
            Map.entry(OpenFlag.O_DIRECT, 0200000),
            Map.entry(OpenFlag.O_LARGEFILE, 0400000),
            Map.entry(OpenFlag.O_NOATIME, 01000000),
            Map.entry(OpenFlag.O_CLOEXEC, 02000000),
            Map.entry(OpenFlag.O_SYNC, 04000000),
            Map.entry(OpenFlag.O_PATH, 010000000),
            Map.entry(OpenFlag.O_TMPFILE, 020000000)));

    private final Map<OpenFlag, Integer> bits;
    private final int known;

    private OpenFlagBits(Map<OpenFlag, Integer> bits) {
        this.bits = new EnumMap<>(bits);
        int k = O_ACCMODE;
        for (int b : bits.values()) {
            k |= b;
        }
        this.known = k;
    }

    /** @return the table of the architecture this JVM runs on ({@code os.arch}) */
    public static OpenFlagBits forThisMachine() {
        String arch = System.getProperty("os.arch", "");
        return arch.equals("aarch64") || arch.equals("arm") || arch.startsWith("armv") ? ARM : GENERIC;
    }

    /**
     * @param value the flags as the kernel printed them
     * @return the access mode and flags they hold
     */
    OpenFlags decode(int value) {
        AccessMode mode = switch (value & O_ACCMODE) {
            case 0 -> AccessMode.READ_ONLY;
            case 1 -> AccessMode.WRITE_ONLY;
            case 2 -> AccessMode.READ_WRITE;
            default -> AccessMode.IOCTL_ONLY;
        };
        Set<OpenFlag> set = EnumSet.noneOf(OpenFlag.class);
        for (Map.Entry<OpenFlag, Integer> e : bits.entrySet()) {
            int b = e.getValue();
            if ((value & b) == b) {
                set.add(e.getKey());
            }
        }
        return new OpenFlags(value, mode, set, value & ~known);
    }

    /**
     * @param flag a flag
     * @return its bit value in this table
     */
    int bit(OpenFlag flag) {
        return bits.get(flag);
    }
}
