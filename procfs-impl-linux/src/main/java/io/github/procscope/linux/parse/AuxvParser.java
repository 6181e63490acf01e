package io.github.procscope.linux.parse;

import io.github.procscope.api.core.ProcfsException;
import io.github.procscope.api.core.ProcfsParseException;
import io.github.procscope.linux.sys.KernelConstants;
import io.github.procscope.linux.sys.ProcBuffer;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Path;
import java.util.OptionalLong;

/**
 * Parser of {@code /proc/PID/auxv}: the ELF auxiliary vector the kernel hands a program at start,
 * native-endian pairs of (type, value) machine words ended by {@code AT_NULL}. It holds the values
 * that {@code sysconf(3)} itself returns for the clock tick rate and the page size, so reading it
 * needs no native call.
 */
public final class AuxvParser {
    static final int AT_NULL = 0;
    static final int AT_PAGESZ = 6;
    static final int AT_CLKTCK = 17;

    private AuxvParser() {
    }

    /**
     * @param source   the file, for messages
     * @param buf      its bytes
     * @param len      how many are valid
     * @param wordSize 8 on 64-bit systems, 4 on 32-bit ones
     * @param type     the entry wanted ({@link #AT_PAGESZ}, {@link #AT_CLKTCK})
     * @return its value, or empty if the vector lacks it
     */
    static OptionalLong find(Path source, byte[] buf, int len, int wordSize, int type) {
        if (wordSize != 4 && wordSize != 8) {
            throw new IllegalArgumentException("word size must be 4 or 8: " + wordSize);
        }
        if (len % (2 * wordSize) != 0) {
            throw new ProcfsParseException(source, "(binary, " + len + " bytes)",
                    "length is not a multiple of " + (2 * wordSize) + " bytes");
        }
        ByteBuffer bb = ByteBuffer.wrap(buf, 0, len).order(ByteOrder.nativeOrder());
        while (bb.remaining() >= 2 * wordSize) {
            long t = wordSize == 8 ? bb.getLong() : Integer.toUnsignedLong(bb.getInt());
            long v = wordSize == 8 ? bb.getLong() : Integer.toUnsignedLong(bb.getInt());
            if (t == AT_NULL) {
                break;
            }
            if (t == type) {
                return OptionalLong.of(v);
            }
        }
        return OptionalLong.empty();
    }

    /**
     * Reads the constants of the running kernel from {@code /proc/self/auxv} of the live system.
     *
     * @return the constants
     * @throws ProcfsException if the file cannot be read or lacks either value
     */
    public static KernelConstants detect() {
        Path file = Path.of("/proc/self/auxv");
        ProcBuffer b = new ProcBuffer(1024);
        if (b.read(file) != ProcBuffer.Result.OK) {
            throw new ProcfsException(file, "cannot read " + file
                    + " to learn the clock tick rate and page size; pass them to LinuxProcfs.builder()");
        }
        int word = "32".equals(System.getProperty("sun.arch.data.model")) ? 4 : 8;
        long ticks = find(file, b.bytes(), b.length(), word, AT_CLKTCK).orElseThrow(
                () -> new ProcfsException(file, file + " has no AT_CLKTCK entry"));
        long page = find(file, b.bytes(), b.length(), word, AT_PAGESZ).orElseThrow(
                () -> new ProcfsException(file, file + " has no AT_PAGESZ entry"));
        return new KernelConstants(ticks, page);
    }
}
