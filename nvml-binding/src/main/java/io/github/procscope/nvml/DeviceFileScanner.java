package io.github.procscope.nvml;

import io.github.procscope.api.core.NoSuchProcessException;
import io.github.procscope.api.core.ProcessAccessDeniedException;
import io.github.procscope.api.files.HeldFile;
import io.github.procscope.api.files.HeldFilesScan;
import io.github.procscope.api.files.OpenFd;
import io.github.procscope.api.files.OpenFiles;
import io.github.procscope.api.gpu.GpuFdScan;
import io.github.procscope.api.gpu.GpuFdUser;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * Finds processes holding NVIDIA device files open: the {@code lsof /dev/nvidia*} view, which works where
 * NVML cannot name the processes (a container whose pids NVML reports in the host's namespace, or a driver
 * that hides them). The descriptors come from an {@link OpenFiles} reader ({@link OpenFiles#heldFiles(String)}
 * for the whole system), so a reader rooted at a fixture tree or a host's {@code /proc} is scanned as
 * well as the live one. A link to {@code /dev/nvidiaN} names GPU N by its minor number
 * ({@link io.github.procscope.api.gpu.GpuDevice#minorNumber()}); other links under the prefix
 * ({@code /dev/nvidiactl}, {@code /dev/nvidia-uvm}, {@code /dev/nvidia-caps/...}) are reported as other files.
 *
 * <p>Processes that exit during the scan are skipped; those whose descriptors this user may not read
 * (another user's, without root or {@code CAP_SYS_PTRACE}) are listed as unreadable. Thread-safe: it holds
 * no state besides its reader and prefix.
 */
public final class DeviceFileScanner {
    /** The prefix of NVIDIA device files. */
    public static final String NVIDIA_DEVICE_PREFIX = "/dev/nvidia";

    private final OpenFiles files;
    private final String devicePrefix;

    /**
     * @param files the open-file reader, such as {@code Procscope.system().openFiles()}
     */
    public DeviceFileScanner(OpenFiles files) {
        this(files, NVIDIA_DEVICE_PREFIX);
    }

    /**
     * @param files        the open-file reader
     * @param devicePrefix the path prefix of the device files: {@code /dev/nvidia}, or another prefix for
     *                     device nodes mounted elsewhere
     * @throws IllegalArgumentException if the prefix is empty
     */
    public DeviceFileScanner(OpenFiles files, String devicePrefix) {
        this.files = Objects.requireNonNull(files, "files");
        if (Objects.requireNonNull(devicePrefix, "devicePrefix").isEmpty()) {
            throw new IllegalArgumentException("the device prefix must not be empty");
        }
        this.devicePrefix = devicePrefix;
    }

    /**
     * Scans every process.
     *
     * @return the processes holding device files, and those that could not be read
     */
    public GpuFdScan scan() {
        HeldFilesScan held = files.heldFiles(devicePrefix);
        Map<Long, List<String>> byPid = new TreeMap<>();
        for (HeldFile f : held.files()) {
            byPid.computeIfAbsent(f.pid(), p -> new ArrayList<>()).add(f.target());
        }
        List<GpuFdUser> users = new ArrayList<>(byPid.size());
        byPid.forEach((pid, targets) -> classify(pid, targets).ifPresent(users::add));
        return new GpuFdScan(users, held.unreadablePids());
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
        List<String> targets = new ArrayList<>();
        for (OpenFd fd : files.fds(pid)) {
            targets.add(fd.target());
        }
        return classify(pid, targets);
    }

    private Optional<GpuFdUser> classify(long pid, List<String> targets) {
        Set<Integer> minors = new TreeSet<>();
        Set<String> others = new TreeSet<>();
        for (String target : targets) {
            classify(target, minors, others);
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

    @Override
    public String toString() {
        return "DeviceFileScanner[" + files + ", " + devicePrefix + "*]";
    }
}
