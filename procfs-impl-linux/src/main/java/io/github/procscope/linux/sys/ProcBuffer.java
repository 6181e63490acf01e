package io.github.procscope.linux.sys;

import io.github.procscope.api.core.NoSuchProcessException;
import io.github.procscope.api.core.ProcessAccessDeniedException;
import io.github.procscope.api.core.ProcfsException;

import java.io.FileInputStream;
import java.io.FileNotFoundException;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;

/**
 * A reusable buffer that reads a whole procfs or sysfs file. Procfs reports sizes of 0 or 4096 that
 * mean nothing, so a file is read until end of file, the buffer growing as needed up to a bound.
 * Not thread-safe: one per reading thread (one per snapshot, one per call).
 *
 * <p>Reading does not throw for the three outcomes that are normal on a live system; it returns them:
 * {@link Result#NOT_FOUND} (the file, or its process, is not there), {@link Result#DENIED} and
 * {@link Result#GONE} (the process exited while the file was being read: {@code ESRCH}).
 */
public final class ProcBuffer {
    /** The outcome of a read. */
    public enum Result {
        /** The file was read; its bytes are in {@link #bytes()}[0, {@link #length()}). */
        OK,
        /** No such file or directory. */
        NOT_FOUND,
        /** Permission denied. */
        DENIED,
        /** The process exited during the read ({@code ESRCH}). */
        GONE
    }

    public static final int DEFAULT_CAPACITY = 4096;
    /**
     * The largest file read whole: 16 MiB, which a JVM with a small heap can hold (a {@code mountinfo} of 100,000
     * mounts is 15 MiB). Files of lines that may be longer, {@code maps} and {@code smaps}, are not read whole
     * but streamed ({@link #stream}).
     */
    static final int MAX_CAPACITY = 16 << 20;

    private byte[] bytes;
    private int length;
    private long[] statFields;

    public ProcBuffer() {
        this(DEFAULT_CAPACITY);
    }

    public ProcBuffer(int capacity) {
        this.bytes = new byte[capacity];
    }

    /** @return the buffer; valid bytes are {@code [0, length())} after an {@link Result#OK} read */
    public byte[] bytes() {
        return bytes;
    }

    /**
     * @param length the number of fields a stat parser fills (its field count plus one)
     * @return a scratch array of that length for the parser's fields, reused by every stat parsed with this buffer
     */
    public long[] statFields(int length) {
        if (statFields == null || statFields.length != length) {
            statFields = new long[length];
        }
        return statFields;
    }

    /** @return how many bytes the last successful read produced */
    public int length() {
        return length;
    }

    /**
     * Reads the whole file.
     *
     * @param file the file
     * @return the outcome
     * @throws ProcfsException for an I/O error other than the normal outcomes, or a file over 16 MiB
     */
    public Result read(Path file) {
        return read(file.toString());
    }

    /**
     * Reads the whole file, refusing one that is not a regular file or is larger than {@code limit} bytes, as
     * {@link #read(String, int)}: for a small kernel file whose name {@link #limitFor} does not know (a cgroup's).
     *
     * @param file  the file
     * @param limit the most bytes the kernel can produce for it
     * @return the outcome
     * @throws ProcfsException for an I/O error other than the normal outcomes, a file that is not a regular file,
     *                         or one over {@code limit} bytes
     */
    public Result read(Path file, int limit) {
        return read(file.toString(), limit);
    }

    /**
     * Reads the whole file, named by a string so that a caller reading thousands of files builds no
     * {@link Path} for each; one is made only to explain a failure.
     *
     * @param file the file's path
     * @return the outcome
     * @throws ProcfsException for an I/O error other than the normal outcomes, or a file over 16 MiB
     */
    public Result read(String file) {
        return read(file, limitFor(file));
    }

    /**
     * Reads the whole file, refusing one larger than {@code limit} bytes. Only a regular file is read (procfs
     * and sysfs files are regular files of size 0); anything else (a FIFO, a device, a directory, a socket)
     * is refused before it is opened, so that a FIFO put where a kernel file should be cannot block the
     * caller and {@code /dev/zero} cannot fill memory. The type is checked and the file then opened, so a
     * file swapped for a FIFO between the two still blocks: a root under another user's control should be
     * read natively ({@link WallProcFiles} opens with {@code O_NONBLOCK}).
     *
     * @param file  the file's path
     * @param limit the most bytes the kernel can produce for it
     * @return the outcome
     * @throws ProcfsException for an I/O error other than the normal outcomes, a file that is not a regular
     *                         file, or one over {@code limit} bytes
     */
    public Result read(String file, int limit) {
        length = 0;
        Result kind = checkRegularFile(file);
        if (kind != Result.OK) {
            return kind;
        }
        // A FileInputStream, not a FileChannel: channels are interruptible, and a thread whose interrupt
        // flag is set would get ClosedByInterruptException instead of the file. A /proc read never blocks.
        try (FileInputStream in = new FileInputStream(file)) {
            int n = 0;
            while (true) {
                if (n >= limit) {
                    if (in.read() >= 0) {
                        throw tooLarge(Path.of(file), limit);
                    }
                    break;
                }
                if (n == bytes.length) {
                    grow(Path.of(file), limit);
                }
                int r = in.read(bytes, n, Math.min(bytes.length, limit) - n);
                if (r < 0) {
                    break;
                }
                n += r;
            }
            length = n;
            return Result.OK;
        } catch (FileNotFoundException e) {
            return openFailure(Path.of(file), e);
        } catch (IOException e) {
            return classify(Path.of(file), e);
        }
    }

    /** Receives a file's lines as they are read, a run of whole lines at a time. */
    @FunctionalInterface
    public interface LineSink {
        /**
         * @param buf  the buffer
         * @param from where the run starts (the start of a line)
         * @param to   where it ends: just past a newline, or the end of the file
         * @throws io.github.procscope.api.core.ProcfsParseException if a line is malformed, which ends the read
         */
        void lines(byte[] buf, int from, int to);
    }

    /** The longest line {@link #stream} takes: a path of 4096 bytes, each escaped to four, with room to spare. */
    public static final int MAX_LINE = 64 << 10;

    /**
     * Reads a file of lines of any length in windows of {@link #MAX_LINE} bytes or more, handing each window's
     * whole lines to {@code sink} and keeping only the last, unfinished line for the next: memory stays bounded
     * however long the file ({@code smaps} of a process with 100,000 mappings is about 100 MB). Only a regular
     * file is read, as by {@link #read(String, int)}. After it, {@link #length()} is 0.
     *
     * @param file the file's path
     * @param sink what takes the lines
     * @return the outcome; {@link Result#OK} once every line was handed on
     * @throws ProcfsException for an I/O error other than the normal outcomes, a file that is not a regular
     *                         file, or a line longer than {@link #MAX_LINE} bytes
     */
    public Result stream(String file, LineSink sink) {
        length = 0;
        Result kind = checkRegularFile(file);
        if (kind != Result.OK) {
            return kind;
        }
        if (bytes.length < MAX_LINE) {
            bytes = new byte[MAX_LINE];
        }
        try (FileInputStream in = new FileInputStream(file)) {
            int n = 0;
            while (true) {
                int r = in.read(bytes, n, bytes.length - n);
                if (r < 0) {
                    if (n > 0) {
                        sink.lines(bytes, 0, n);
                    }
                    return Result.OK;
                }
                n += r;
                int last = n - 1;
                while (last >= 0 && bytes[last] != '\n') {
                    last--;
                }
                if (last < 0) {
                    if (n == bytes.length) {
                        throw new io.github.procscope.api.core.ProcfsFileRefusedException(Path.of(file), file
                                + " has a line longer than " + (bytes.length >> 10) + " KiB, more than the kernel"
                                + " writes there; refusing to read it");
                    }
                    continue;
                }
                sink.lines(bytes, 0, last + 1);
                System.arraycopy(bytes, last + 1, bytes, 0, n - last - 1);
                n -= last + 1;
            }
        } catch (FileNotFoundException e) {
            return openFailure(Path.of(file), e);
        } catch (IOException e) {
            return classify(Path.of(file), e);
        }
    }

    /**
     * As {@link #stream(String, LineSink)} for a per-process file that the caller asked for by name, every
     * outcome other than {@link Result#OK} turned into the typed exception it means, as by
     * {@link #readProcessFile}.
     */
    public void streamProcessFile(long pid, Path pidDir, Path file, LineSink sink) {
        Result r = stream(file.toString(), sink);
        if (r != Result.OK) {
            throw ReadFailures.translate(pid, pidDir, file, r);
        }
    }

    /**
     * @return {@link Result#OK} if {@code file} is a regular file (links followed), else why it cannot be read
     * @throws ProcfsException if it is there but is not a regular file
     */
    static Result checkRegularFile(String file) {
        BasicFileAttributes a;
        try {
            a = Files.readAttributes(Path.of(file), BasicFileAttributes.class);
        } catch (IOException e) {
            return classify(Path.of(file), e);
        }
        if (!a.isRegularFile()) {
            throw notRegular(Path.of(file), a.isDirectory() ? "a directory" : a.isSymbolicLink() ? "a link"
                    : a.isOther() ? "a FIFO, socket or device" : "not a regular file");
        }
        return Result.OK;
    }

    /** @return the error for a file that is not a regular file, {@code kind} saying what it is instead */
    static ProcfsException notRegular(Path file, String kind) {
        return new io.github.procscope.api.core.ProcfsFileRefusedException(file, file + " is " + kind + ", not a regular file; refusing to read it");
    }

    /**
     * The most bytes the kernel produces for a procfs file, by its name (and, for {@code stat}, whether it is a
     * process's or the system's), with room to spare; a file past it is refused rather than read whole.
     *
     * @param file the file's path
     * @return its limit in bytes
     */
    static int limitFor(String file) {
        int slash = file.lastIndexOf('/');
        String name = file.substring(slash + 1);
        switch (name) {
            case "stat":
                return perProcess(file, slash) ? SMALL_LIMIT : 4 << 20; // the system's: a line per CPU and IRQ
            case "statm":
            case "uptime":
            case "loadavg":
            case "smaps_rollup":
            case "meminfo":
            case "io":
            case "limits":
            case "wchan":
                return SMALL_LIMIT;
            case "status":
                return 1 << 20; // up to 65536 supplementary groups
            case "cmdline":
            case "environ":
                return 16 << 20; // the argument area, 6 MiB at most from execve
            default:
                return parentName(file, slash).equals("fdinfo") ? 16 << 20 : MAX_CAPACITY;
        }
    }

    /** The limit of files the kernel makes in one page or a few lines. */
    public static final int SMALL_LIMIT = 64 << 10;

    private static boolean perProcess(String file, int slash) {
        String parent = parentName(file, slash);
        if (parent.isEmpty() || parent.equals("self") || parent.equals("thread-self")) {
            return !parent.isEmpty();
        }
        for (int i = 0; i < parent.length(); i++) {
            char c = parent.charAt(i);
            if (c < '0' || c > '9') {
                return false;
            }
        }
        return true;
    }

    private static String parentName(String file, int slash) {
        if (slash <= 0) {
            return "";
        }
        int start = file.lastIndexOf('/', slash - 1);
        return file.substring(start + 1, slash);
    }

    /** Starts a read that a caller fills itself ({@link WallProcFiles}): the buffer is emptied. */
    void clear() {
        length = 0;
    }

    /**
     * @return room after the valid bytes, the buffer growing when it is full; 0 only when it is full at
     *         its largest ({@link #MAX_CAPACITY}), which the caller reports as a file too large to read
     */
    int room() {
        return room(MAX_CAPACITY);
    }

    /**
     * @param limit the most bytes the file may have
     * @return room after the valid bytes up to {@code limit}, the buffer growing when it is full; 0 when
     *         {@code limit} bytes are there
     */
    int room(int limit) {
        if (length >= limit) {
            return 0;
        }
        if (length == bytes.length) {
            grow(null, limit);
        }
        return Math.min(bytes.length, limit) - length;
    }

    /** @param n bytes the caller copied into {@link #bytes()} after the valid ones */
    void advance(int n) {
        length += n;
    }

    /**
     * Reads a per-process file that the caller asked for by name, turning every outcome other than
     * {@link Result#OK} into the typed exception it means ({@link ReadFailures#translate}). A missing file means
     * the process is gone only if its {@code stat} file is gone too; otherwise the kernel lacks the file.
     *
     * @param pid    the process, for messages
     * @param pidDir its directory, {@code /proc/PID}
     * @param file   the file to read
     * @throws NoSuchProcessException       if the process is gone
     * @throws ProcessAccessDeniedException if the kernel refuses the file to this user
     * @throws ProcfsException              if the file is missing though the process exists
     */
    public void readProcessFile(long pid, Path pidDir, Path file) {
        Result r = read(file);
        if (r != Result.OK) {
            throw ReadFailures.translate(pid, pidDir, file, r);
        }
    }

    /** FileInputStream reports every failure to open as FileNotFoundException; ask the file system which. */
    private static Result openFailure(Path file, FileNotFoundException e) {
        try {
            Files.readAttributes(file, BasicFileAttributes.class);
        } catch (IOException x) {
            return classify(file, x);
        }
        if (!Files.isReadable(file)) {
            return Result.DENIED;
        }
        return classify(file, e);
    }

    /** @return the error for a file over {@link #MAX_CAPACITY} */
    static ProcfsException tooLarge(Path file) {
        return tooLarge(file, MAX_CAPACITY);
    }

    /** @return the error for a file over {@code limit} bytes, more than the kernel makes for it */
    static ProcfsException tooLarge(Path file, int limit) {
        String size = limit >= 1 << 20 ? (limit >> 20) + " MiB" : (limit >> 10) + " KiB";
        return new io.github.procscope.api.core.ProcfsFileRefusedException(file, file + " is larger than " + size
                + ", more than the kernel writes there; refusing to read it");
    }

    /**
     * @return what a failed read means ({@link ReadFailures#classify(IOException)})
     * @throws ProcfsException naming the file, for any other I/O error
     */
    private static Result classify(Path file, IOException e) {
        Result r = ReadFailures.classify(e);
        if (r == null) {
            throw new ProcfsException(file, "cannot read " + file + ": " + e.getMessage(), e);
        }
        return r;
    }

    private void grow(Path file, int limit) {
        if (bytes.length >= MAX_CAPACITY) {
            throw tooLarge(file);
        }
        byte[] bigger = new byte[(int) Math.min(Math.min(MAX_CAPACITY, limit), bytes.length * 2L)];
        System.arraycopy(bytes, 0, bigger, 0, bytes.length);
        bytes = bigger;
    }
}
