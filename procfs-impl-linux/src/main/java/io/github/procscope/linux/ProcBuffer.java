package io.github.procscope.linux;

import io.github.procscope.api.NoSuchProcessException;
import io.github.procscope.api.ProcessAccessDeniedException;
import io.github.procscope.api.ProcfsException;

import java.io.FileInputStream;
import java.io.FileNotFoundException;
import java.io.IOException;
import java.nio.file.AccessDeniedException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.NotDirectoryException;
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

    static final int DEFAULT_CAPACITY = 4096;
    /** The largest file read: 256 MiB (a {@code smaps} of a huge process is tens of MiB). */
    static final int MAX_CAPACITY = 256 << 20;

    private byte[] bytes;
    private int length;
    private long[] statFields;

    public ProcBuffer() {
        this(DEFAULT_CAPACITY);
    }

    ProcBuffer(int capacity) {
        this.bytes = new byte[capacity];
    }

    /** @return the buffer; valid bytes are {@code [0, length())} after an {@link Result#OK} read */
    public byte[] bytes() {
        return bytes;
    }

    /** @return a scratch array for {@link StatParser}'s fields, reused by every stat parsed with this buffer */
    long[] statFields() {
        if (statFields == null) {
            statFields = new long[StatParser.ALL_FIELDS + 1];
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
     * @throws ProcfsException for an I/O error other than the normal outcomes, or a file over 256 MiB
     */
    public Result read(Path file) {
        return read(file.toString());
    }

    /**
     * Reads the whole file, named by a string so that a caller reading thousands of files builds no
     * {@link Path} for each; one is made only to explain a failure.
     *
     * @param file the file's path
     * @return the outcome
     * @throws ProcfsException for an I/O error other than the normal outcomes, or a file over 256 MiB
     */
    Result read(String file) {
        length = 0;
        // A FileInputStream, not a FileChannel: channels are interruptible, and a thread whose interrupt
        // flag is set would get ClosedByInterruptException instead of the file. A /proc read never blocks.
        try (FileInputStream in = new FileInputStream(file)) {
            int n = 0;
            while (true) {
                if (n == bytes.length) {
                    grow(Path.of(file));
                }
                int r = in.read(bytes, n, bytes.length - n);
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
            return classify(Path.of(file), e, e.getMessage());
        }
    }

    /** Starts a read that a caller fills itself ({@link NativeProcFiles}): the buffer is emptied. */
    void clear() {
        length = 0;
    }

    /**
     * @return room after the valid bytes, the buffer growing when it is full; 0 only when it is full at
     *         its largest ({@link #MAX_CAPACITY}), which the caller reports as a file too large to read
     */
    int room() {
        if (length == bytes.length) {
            if (bytes.length >= MAX_CAPACITY) {
                return 0;
            }
            grow(null);
        }
        return bytes.length - length;
    }

    /** @param n bytes the caller copied into {@link #bytes()} after the valid ones */
    void advance(int n) {
        length += n;
    }

    /**
     * Reads a per-process file that the caller asked for by name, turning every outcome other than
     * {@link Result#OK} into the typed exception it means. A missing file means the process is gone only if
     * its {@code stat} file is gone too; otherwise the kernel lacks the file.
     *
     * @param pid    the process, for messages
     * @param pidDir its directory, {@code /proc/PID}
     * @param file   the file to read
     * @throws NoSuchProcessException       if the process is gone
     * @throws ProcessAccessDeniedException if the kernel refuses the file to this user
     * @throws ProcfsException              if the file is missing though the process exists
     */
    void readProcessFile(long pid, Path pidDir, Path file) {
        switch (read(file)) {
            case OK:
                return;
            case DENIED:
                throw new ProcessAccessDeniedException(pid, file);
            case GONE:
                throw new NoSuchProcessException(pid);
            case NOT_FOUND:
            default:
                if (processGone(pidDir)) {
                    throw new NoSuchProcessException(pid);
                }
                throw new ProcfsException(file, file + " is missing although pid " + pid
                        + " exists (a kernel without this file?)");
        }
    }

    /**
     * The rule "gone means {@code stat} is gone too", written once: a per-process file that is not found
     * means the process is gone only if {@code /proc/PID/stat} is gone as well (a kernel may lack the file,
     * or a tree may leave it out). Every reader asks this method.
     *
     * @return whether the process of {@code pidDir} ({@code /proc/PID}) is gone: its {@code stat} file is
     */
    static boolean processGone(Path pidDir) {
        return !Files.exists(pidDir.resolve("stat"));
    }

    /** FileInputStream reports every failure to open as FileNotFoundException; ask the file system which. */
    private static Result openFailure(Path file, FileNotFoundException e) {
        try {
            Files.readAttributes(file, BasicFileAttributes.class);
        } catch (NoSuchFileException | NotDirectoryException x) {
            return Result.NOT_FOUND;
        } catch (AccessDeniedException x) {
            return Result.DENIED;
        } catch (IOException x) {
            return classify(file, x, x.getMessage());
        }
        if (!Files.isReadable(file)) {
            return Result.DENIED;
        }
        return classify(file, e, e.getMessage());
    }

    /** @return the error for a file over {@link #MAX_CAPACITY} */
    static ProcfsException tooLarge(Path file) {
        return new ProcfsException(file, file + " is larger than " + (MAX_CAPACITY >> 20)
                + " MiB; refusing to read it whole");
    }

    private static Result classify(Path file, IOException e, String reason) {
        if (reason != null) {
            if (reason.contains("No such process")) {
                return Result.GONE;
            }
            if (reason.contains("No such file") || reason.contains("Not a directory")) {
                return Result.NOT_FOUND;
            }
            if (reason.contains("Permission denied") || reason.contains("Operation not permitted")) {
                return Result.DENIED;
            }
        }
        throw new ProcfsException(file, "cannot read " + file + ": " + e.getMessage(), e);
    }

    private void grow(Path file) {
        if (bytes.length >= MAX_CAPACITY) {
            throw tooLarge(file);
        }
        byte[] bigger = new byte[Math.min(MAX_CAPACITY, bytes.length * 2)];
        System.arraycopy(bytes, 0, bigger, 0, bytes.length);
        bytes = bigger;
    }
}
