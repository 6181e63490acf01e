package io.github.procscope.linux.proc;

import io.github.procscope.api.core.NoSuchProcessException;
import io.github.procscope.api.core.ProcessAccessDeniedException;
import io.github.procscope.api.core.ProcfsException;
import io.github.procscope.linux.sys.ProcBuffer;
import io.github.procscope.linux.sys.ReadFailures;

import java.io.IOException;
import java.nio.file.DirectoryIteratorException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.function.IntConsumer;

/**
 * The one reader of {@code /proc/PID/fd}: every descriptor listing (open files, deleted-but-open files, held
 * files and with them GPU holders, descriptor counts of snapshots and job trees) goes through {@link #walk}, and
 * what a failed listing means is decided by {@link ReadFailures}. An entry is a descriptor when its name is a
 * decimal number up to {@link Integer#MAX_VALUE}; nothing else lives there, and anything else is skipped.
 */
final class FdDirectory {
    /** How a listing that must not throw ended. */
    enum Status {
        /** Listed whole. */
        READ,
        /** The directory or its entries are refused to the caller (another user's process, a security module). */
        DENIED,
        /** The process exited, or its directory vanished, while it was listed. */
        GONE
    }

    /**
     * The descriptors of one listing, ascending, and how it ended.
     *
     * @param status how it ended
     * @param fds    the descriptors listed, ascending; empty unless {@link Status#READ}
     */
    record Listing(Status status, int[] fds) {
        /** @return a copy of the descriptors */
        @Override
        public int[] fds() {
            return fds.clone();
        }
    }

    private FdDirectory() {
    }

    /**
     * @param pidDir a process's directory, {@code ROOT/PID}
     * @return its descriptor directory, {@code ROOT/PID/fd}
     */
    static Path of(Path pidDir) {
        return pidDir.resolve("fd");
    }

    /**
     * Lists the descriptors of a process for a per-process call.
     *
     * @param pid    the process, for messages
     * @param pidDir its directory
     * @return its descriptors, ascending
     * @throws NoSuchProcessException       if it is gone
     * @throws ProcessAccessDeniedException if the caller may not list them
     * @throws ProcfsException              for any other failure, naming the directory
     */
    static int[] list(long pid, Path pidDir) {
        Path fdDir = of(pidDir);
        return ReadFailures.read(pid, pidDir, fdDir, () -> sorted(fdDir));
    }

    /**
     * Lists the descriptors of a process for a system-wide scan, where a refused or vanished process is recorded,
     * not thrown.
     *
     * @param pidDir the process's directory
     * @return its descriptors, ascending, or why there are none
     */
    static Listing scan(Path pidDir) {
        try {
            return new Listing(Status.READ, sorted(of(pidDir)));
        } catch (IOException e) {
            return new Listing(ReadFailures.classify(e) == ProcBuffer.Result.DENIED ? Status.DENIED : Status.GONE,
                    new int[0]);
        }
    }

    /**
     * Counts the descriptors of a process without reading a link, streamed: a process holding a million of them
     * costs time, not memory.
     *
     * @param pidDir the process's directory
     * @return the number of descriptors, or -1 when it cannot be listed (another user's process, a process gone)
     */
    static int count(Path pidDir) {
        int[] n = new int[1];
        try {
            walk(of(pidDir), fd -> n[0]++);
        } catch (IOException | SecurityException e) {
            return -1;
        }
        return n[0];
    }

    private static int[] sorted(Path fdDir) throws IOException {
        int[][] out = {new int[64]};
        int[] n = new int[1];
        walk(fdDir, fd -> {
            if (n[0] == out[0].length) {
                out[0] = Arrays.copyOf(out[0], n[0] * 2);
            }
            out[0][n[0]++] = fd;
        });
        int[] fds = Arrays.copyOf(out[0], n[0]);
        Arrays.sort(fds);
        return fds;
    }

    /**
     * The one walk of a descriptor directory: each entry whose name is a descriptor number, in the kernel's
     * order.
     *
     * @param fdDir the directory, {@code ROOT/PID/fd}
     * @param onFd  given each descriptor number
     * @throws IOException if it cannot be opened or read to its end (a failure in the middle included)
     */
    static void walk(Path fdDir, IntConsumer onFd) throws IOException {
        try (DirectoryStream<Path> ds = Files.newDirectoryStream(fdDir)) {
            for (Path p : ds) {
                int fd = parseFd(p.getFileName().toString());
                if (fd >= 0) {
                    onFd.accept(fd);
                }
            }
        } catch (DirectoryIteratorException e) {
            throw e.getCause();
        }
    }

    /** @return the descriptor an entry's name is, or -1 if it is not a decimal number up to 2^31-1 */
    static int parseFd(String name) {
        return (int) LinuxProcfs.parseDecimalName(name, Integer.MAX_VALUE);
    }
}
