package io.github.procscope.api.files;

import io.github.procscope.api.core.NoSuchProcessException;
import io.github.procscope.api.core.ProcessAccessDeniedException;
import io.github.procscope.api.core.ProcessKey;

import java.util.List;

/**
 * Open files: a process's descriptors, and a system-wide scan for deleted files still held open.
 * Implementations are thread-safe and hold no data between calls.
 *
 * <pre>{@code
 * OpenFiles files = Procscope.system().openFiles();
 * for (OpenFd fd : files.fds(pid)) {
 *     System.out.println(fd.fd() + " " + fd.kind() + " " + fd.target() + " " + fd.flags());
 * }
 * DeletedFilesScan scan = files.deletedFiles();
 * HeldFilesScan gpuHolders = files.heldFiles("/dev/nvidia");
 * scan.fileSystems().forEach(fs -> System.out.println(fs.mountPoint().orElse("?") + " holds "
 *         + fs.allocatedBytes() + " bytes of deleted files"));
 * }</pre>
 */
public interface OpenFiles {

    /**
     * Reads every open descriptor of a process: {@code /proc/PID/fd}, a {@code stat} of each target, and
     * {@code /proc/PID/fdinfo}. A descriptor closed while the list is read is left out.
     *
     * @param pid a process id
     * @return its descriptors, ascending by number
     * @throws NoSuchProcessException       if the process does not exist or exits while being read
     * @throws ProcessAccessDeniedException if the kernel refuses to show its descriptors to this user
     * @throws IllegalArgumentException     if the pid is out of range
     */
    List<OpenFd> fds(long pid);

    /**
     * As {@link #fds(long)}, then checks that the pid still names the process {@code key} names.
     *
     * @param key a process identity
     * @return its descriptors, ascending by number
     * @throws NoSuchProcessException       if it is gone, exits while being read, or its pid now names another
     *                                      process
     * @throws ProcessAccessDeniedException if the kernel refuses to show its descriptors to this user
     */
    default List<OpenFd> fds(ProcessKey key) {
        List<OpenFd> fds = fds(key.pid());
        key.requireSameAs(key(key.pid()));
        return fds;
    }

    /**
     * {@return its identity, read now, in the form {@link io.github.procscope.api.process.ProcessTable#key(long)}
     * reads: on the live system's {@code /proc}, exact (with the pidfs inode of a pidfd, Linux 6.9 and later), so
     * a key from here is safe for an action; under another root, (pid, start time) from {@code /proc/PID/stat}}
     *
     * @param pid a process id
     * @throws NoSuchProcessException   if it does not exist
     * @throws IllegalArgumentException if the pid is out of range
     */
    ProcessKey key(long pid);

    /**
     * Scans every process for descriptors holding a deleted file (link count 0), as {@code lsof +L1}
     * does. Processes that exit during the scan and descriptors that close are skipped; processes whose
     * descriptors may not be read are listed in {@link DeletedFilesScan#unreadablePids()}.
     *
     * @return the holders and the space held per file system
     */
    DeletedFilesScan deletedFiles();

    /**
     * Scans every process for descriptors whose link text starts with a prefix, as
     * {@code lsof /dev/nvidia*} does: only the links {@code /proc/PID/fd/*} are read (no {@code stat}, no
     * {@code fdinfo}), so the scan costs one directory listing per process and one link read per descriptor.
     * Processes that exit during the scan and descriptors that close are skipped; processes whose descriptors
     * may not be read are listed in {@link HeldFilesScan#unreadablePids()}.
     *
     * @param targetPrefix the start of the link text to look for, such as {@code /dev/nvidia}
     * @return the matching descriptors and the processes that could not be read
     * @throws IllegalArgumentException if the prefix is empty
     */
    HeldFilesScan heldFiles(String targetPrefix);
}
