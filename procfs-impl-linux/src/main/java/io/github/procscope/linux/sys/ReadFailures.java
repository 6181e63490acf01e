package io.github.procscope.linux.sys;

import io.github.procscope.api.core.NoSuchProcessException;
import io.github.procscope.api.core.ProcessAccessDeniedException;
import io.github.procscope.api.core.ProcfsException;
import io.github.procscope.api.core.ProcscopeException;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.AccessDeniedException;
import java.nio.file.DirectoryIteratorException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.NotDirectoryException;
import java.nio.file.Path;

/**
 * The one translation of a failed read of a process's files into what it means (psutil's
 * {@code wrap_exceptions}): every reader classifies a failure here, by {@code errno} or by the JDK's exception,
 * and turns it into {@link NoSuchProcessException}, {@link ProcessAccessDeniedException} or a
 * {@link ProcfsException} naming the file here. The rules, written once:
 * <ul>
 *   <li>{@code ESRCH} (the process exited during the read) means gone;</li>
 *   <li>not found ({@code ENOENT}, {@code ENOTDIR}) means gone only if {@code /proc/PID/stat} is gone too
 *       ({@link #processGone}); otherwise the kernel (or a fixture tree) lacks that file;</li>
 *   <li>denied ({@code EACCES}, {@code EPERM}) means gone if the process is gone, a zombie or exiting
 *       ({@link #exitingOrGone}: an exiting process refuses its memory files even to root), else denied;</li>
 *   <li>any other error is a {@link ProcfsException} naming the file, unless the process is gone.</li>
 * </ul>
 */
public final class ReadFailures {
    /** {@code PF_EXITING} in the flags of {@code /proc/PID/stat} (field 9): the task is in {@code do_exit}. */
    private static final long PF_EXITING = 0x4;

    private ReadFailures() {
    }

    /** A read of a process's file that may fail with an {@link IOException}. */
    @FunctionalInterface
    public interface IoRead<T> {
        T read() throws IOException;
    }

    /**
     * Runs a read of {@code file} of process {@code pid}, translating its failure ({@link #translate}).
     *
     * @return what the read returned
     * @throws NoSuchProcessException       if the process is gone
     * @throws ProcessAccessDeniedException if the kernel refuses the file to this user
     * @throws ProcfsException              for any other failure, naming the file
     */
    public static <T> T read(long pid, Path pidDir, Path file, IoRead<T> read) {
        try {
            return read.read();
        } catch (IOException e) {
            throw translate(pid, pidDir, file, e);
        } catch (DirectoryIteratorException e) {
            throw translate(pid, pidDir, file, e.getCause());
        }
    }

    /**
     * @return what an {@code errno} of an open, read or stat means: {@link ProcBuffer.Result#NOT_FOUND},
     *         {@link ProcBuffer.Result#GONE} or {@link ProcBuffer.Result#DENIED}; null for any other error
     */
    public static ProcBuffer.Result classify(int errno) {
        switch (errno) {
            case Errno.ENOENT:
            case Errno.ENOTDIR:
                return ProcBuffer.Result.NOT_FOUND;
            case Errno.ESRCH:
                return ProcBuffer.Result.GONE;
            case Errno.EACCES:
            case Errno.EPERM:
                return ProcBuffer.Result.DENIED;
            default:
                return null;
        }
    }

    /**
     * @return what an I/O exception of the JDK means, by its type or (for the plain {@link IOException} of a
     *         stream) the {@code strerror} text it carries; null for any other error
     */
    public static ProcBuffer.Result classify(IOException e) {
        if (e instanceof NoSuchFileException || e instanceof NotDirectoryException) {
            return ProcBuffer.Result.NOT_FOUND;
        }
        if (e instanceof AccessDeniedException) {
            return ProcBuffer.Result.DENIED;
        }
        String reason = e.getMessage();
        if (reason != null) {
            if (reason.contains("No such process")) {
                return ProcBuffer.Result.GONE;
            }
            if (reason.contains("No such file") || reason.contains("Not a directory")) {
                return ProcBuffer.Result.NOT_FOUND;
            }
            if (reason.contains("Permission denied") || reason.contains("Operation not permitted")) {
                return ProcBuffer.Result.DENIED;
            }
        }
        return null;
    }

    /**
     * @param pid    the process, for messages
     * @param pidDir its directory, {@code /proc/PID}
     * @param file   the file whose read failed
     * @param r      how it failed: not {@link ProcBuffer.Result#OK}
     * @return the exception the failure means, to be thrown
     */
    public static ProcscopeException translate(long pid, Path pidDir, Path file, ProcBuffer.Result r) {
        switch (r) {
            case DENIED:
                return exitingOrGone(pidDir) ? new NoSuchProcessException(pid) : new ProcessAccessDeniedException(pid, file);
            case GONE:
                return new NoSuchProcessException(pid);
            case NOT_FOUND:
                return processGone(pidDir) ? new NoSuchProcessException(pid) : new ProcfsException(file, file
                        + " is missing although pid " + pid + " exists (a kernel without this file?)");
            case OK:
            default:
                throw new IllegalArgumentException("a read that succeeded has nothing to translate: " + file);
        }
    }

    /**
     * @return the exception an I/O exception of a read of {@code file} means, to be thrown
     * @see #translate(long, Path, Path, ProcBuffer.Result)
     */
    public static ProcscopeException translate(long pid, Path pidDir, Path file, IOException e) {
        ProcBuffer.Result r = classify(e);
        if (r != null) {
            return translate(pid, pidDir, file, r);
        }
        if (processGone(pidDir)) {
            return new NoSuchProcessException(pid);
        }
        return new ProcfsException(file, "cannot read " + file + ": " + e.getMessage(), e);
    }

    /**
     * The rule "gone means {@code stat} is gone too": a per-process file that is not found means the process is
     * gone only if {@code /proc/PID/stat} is gone as well (a kernel may lack the file, or a tree may leave it
     * out).
     *
     * @return whether the process of {@code pidDir} ({@code /proc/PID}) is gone: its {@code stat} file is
     */
    public static boolean processGone(Path pidDir) {
        return !Files.exists(pidDir.resolve("stat"));
    }

    /**
     * @throws NoSuchProcessException if the process of {@code pidDir} is gone ({@link #processGone})
     */
    public static void requirePresent(long pid, Path pidDir) {
        if (processGone(pidDir)) {
            throw new NoSuchProcessException(pid);
        }
    }

    /**
     * Tells a refusal caused by exit from a real one: a process in {@code do_exit} has given up its address
     * space, and the kernel then refuses its memory files with {@code EACCES} even to root. A {@code stat} that
     * is itself refused (a procfs mounted with {@code hidepid=1}) says nothing of exit: the process is there.
     *
     * @return whether the process of {@code pidDir} is gone, a zombie, dead, or exiting ({@code PF_EXITING})
     */
    static boolean exitingOrGone(Path pidDir) {
        ProcBuffer b = new ProcBuffer(512);
        ProcBuffer.Result r = b.read(pidDir.resolve("stat").toString(), ProcBuffer.SMALL_LIMIT);
        if (r == ProcBuffer.Result.DENIED) {
            return false;
        }
        if (r != ProcBuffer.Result.OK) {
            return true;
        }
        byte[] bytes = b.bytes();
        int length = b.length();
        int close = -1;
        for (int i = length - 1; i >= 0; i--) {
            if (bytes[i] == ')') {
                close = i;
                break;
            }
        }
        if (close < 0 || close + 2 >= length) {
            return false;
        }
        byte state = bytes[close + 2];
        if (state == 'Z' || state == 'X' || state == 'x') {
            return true;
        }
        // Fields after the state: ppid, pgrp, session, tty_nr, tpgid, flags.
        String[] f = new String(bytes, close + 4, Math.max(0, length - close - 4), StandardCharsets.US_ASCII)
                .split(" ", 7);
        if (f.length < 6) {
            return false;
        }
        try {
            return (Long.parseUnsignedLong(f[5]) & PF_EXITING) != 0;
        } catch (NumberFormatException e) {
            return false;
        }
    }
}
