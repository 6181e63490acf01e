package io.github.procscope.nvml;

import io.github.procscope.api.NoSuchProcessException;
import io.github.procscope.api.Pids;
import io.github.procscope.api.ProcessAccessDeniedException;
import io.github.procscope.api.ProcfsUnavailableException;
import io.github.procscope.api.gpu.GpuFdScan;
import io.github.procscope.api.gpu.GpuFdUser;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.AccessDeniedException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.NotDirectoryException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;

/**
 * Finds processes holding NVIDIA device files open, from the links in {@code /proc/PID/fd/*} under a
 * procfs root: the {@code lsof /dev/nvidia*} view, which works where NVML cannot name the processes (a
 * container whose pids NVML reports in the host's namespace, or a driver that hides them). A link to
 * {@code /dev/nvidiaN} names GPU N by its minor number ({@link io.github.procscope.api.gpu.GpuDevice#minorNumber()});
 * other links under the prefix ({@code /dev/nvidiactl}, {@code /dev/nvidia-uvm},
 * {@code /dev/nvidia-caps/...}) are reported as other files.
 *
 * <p>Processes that exit during the scan are skipped; those whose descriptors this user may not read
 * (another user's, without root or {@code CAP_SYS_PTRACE}) are listed as unreadable. Thread-safe: it holds
 * no state besides its root.
 */
public final class DeviceFileScanner {
    /** The prefix of NVIDIA device files. */
    public static final String NVIDIA_DEVICE_PREFIX = "/dev/nvidia";

    private final Path procRoot;
    private final String devicePrefix;

    /**
     * @param procRoot the procfs root, such as {@code /proc} or a fixture tree
     */
    public DeviceFileScanner(Path procRoot) {
        this(procRoot, NVIDIA_DEVICE_PREFIX);
    }

    /**
     * @param procRoot     the procfs root
     * @param devicePrefix the path prefix of the device files: {@code /dev/nvidia}, or another prefix for
     *                     device nodes mounted elsewhere
     * @throws IllegalArgumentException if the prefix is empty
     */
    public DeviceFileScanner(Path procRoot, String devicePrefix) {
        this.procRoot = Objects.requireNonNull(procRoot, "procRoot");
        if (Objects.requireNonNull(devicePrefix, "devicePrefix").isEmpty()) {
            throw new IllegalArgumentException("the device prefix must not be empty");
        }
        this.devicePrefix = devicePrefix;
    }

    /** @return a scanner of {@code /proc} for {@code /dev/nvidia*} */
    public static DeviceFileScanner system() {
        return new DeviceFileScanner(Path.of("/proc"));
    }

    /**
     * Scans every process.
     *
     * @return the processes holding device files, and those that could not be read
     * @throws ProcfsUnavailableException if the root cannot be listed
     */
    public GpuFdScan scan() {
        List<GpuFdUser> users = new ArrayList<>();
        List<Long> unreadable = new ArrayList<>();
        List<Long> pids = new ArrayList<>();
        try (DirectoryStream<Path> dir = Files.newDirectoryStream(procRoot)) {
            for (Path entry : dir) {
                long pid = parsePid(entry.getFileName().toString());
                if (pid > 0) {
                    pids.add(pid);
                }
            }
        } catch (NoSuchFileException | NotDirectoryException e) {
            throw new ProcfsUnavailableException(procRoot, "it does not exist or is not a directory");
        } catch (IOException e) {
            throw new ProcfsUnavailableException(procRoot, "it cannot be listed: " + e);
        }
        Collections.sort(pids);
        for (long pid : pids) {
            try {
                scanProcess(pid).ifPresent(users::add);
            } catch (NoSuchProcessException gone) {
                // It exited during the scan.
            } catch (ProcessAccessDeniedException denied) {
                unreadable.add(pid);
            }
        }
        return new GpuFdScan(users, unreadable);
    }

    /**
     * Scans one process.
     *
     * @param pid a process id
     * @return the device files it holds; empty when it holds none
     * @throws NoSuchProcessException       if it does not exist
     * @throws ProcessAccessDeniedException if this user may not read its descriptors
     * @throws IllegalArgumentException     if the pid is out of range
     */
    public Optional<GpuFdUser> scan(long pid) {
        Pids.requireValid(pid);
        return scanProcess(pid);
    }

    private Optional<GpuFdUser> scanProcess(long pid) {
        Path fdDir = procRoot.resolve(Long.toString(pid)).resolve("fd");
        Set<Integer> minors = new TreeSet<>();
        Set<String> others = new TreeSet<>();
        try (DirectoryStream<Path> fds = Files.newDirectoryStream(fdDir)) {
            for (Path fd : fds) {
                String target;
                try {
                    target = Files.readSymbolicLink(fd).toString();
                } catch (NoSuchFileException closed) {
                    continue; // the descriptor was closed meanwhile
                } catch (AccessDeniedException denied) {
                    throw new ProcessAccessDeniedException(pid, fd);
                } catch (IOException | UnsupportedOperationException notALink) {
                    continue; // not a link: not a descriptor entry
                }
                classify(target, minors, others);
            }
        } catch (NoSuchFileException | NotDirectoryException e) {
            throw new NoSuchProcessException(pid);
        } catch (AccessDeniedException e) {
            throw new ProcessAccessDeniedException(pid, fdDir);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot list " + fdDir, e);
        } catch (java.nio.file.DirectoryIteratorException e) {
            if (e.getCause() instanceof AccessDeniedException) {
                throw new ProcessAccessDeniedException(pid, fdDir);
            }
            if (e.getCause() instanceof NoSuchFileException) {
                throw new NoSuchProcessException(pid);
            }
            throw new UncheckedIOException("cannot list " + fdDir, e.getCause());
        }
        return minors.isEmpty() && others.isEmpty() ? Optional.empty() : Optional.of(new GpuFdUser(pid, minors, others));
    }

    private void classify(String target, Set<Integer> minors, Set<String> others) {
        if (!target.startsWith(devicePrefix)) {
            return;
        }
        int start = devicePrefix.length();
        int len = target.length();
        if (start == len) {
            others.add(target);
            return;
        }
        long minor = 0;
        for (int i = start; i < len; i++) {
            char c = target.charAt(i);
            if (c < '0' || c > '9' || minor > Integer.MAX_VALUE / 10) {
                others.add(target);
                return;
            }
            minor = minor * 10 + (c - '0');
        }
        minors.add((int) minor);
    }

    /** @return the pid a directory name stands for, or 0 if it is not a pid */
    private static long parsePid(String name) {
        if (name.isEmpty() || name.length() > 10) {
            return 0;
        }
        long v = 0;
        for (int i = 0; i < name.length(); i++) {
            char c = name.charAt(i);
            if (c < '0' || c > '9') {
                return 0;
            }
            v = v * 10 + (c - '0');
        }
        return v <= Pids.PID_MAX_LIMIT ? v : 0;
    }

    @Override
    public String toString() {
        return "DeviceFileScanner[" + procRoot + ", " + devicePrefix + "*]";
    }
}
