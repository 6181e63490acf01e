package io.github.procscope.linux.proc;

import io.github.procscope.api.core.NoSuchProcessException;
import io.github.procscope.api.core.Pids;
import io.github.procscope.api.core.ProcessKey;
import io.github.procscope.api.process.ProcessTable;
import io.github.procscope.linux.sys.KernelConstants;
import io.github.procscope.linux.sys.ProcBuffer;

import java.nio.file.Path;
import java.util.Objects;
import java.util.function.Supplier;

/**
 * The identity of a process as a rooted reader gives it: under the live {@code /proc}, the exact form through the
 * live process table (with the pidfs inode where the kernel has one), as {@code ProcessTable.key(long)} reads it,
 * so that a key from any reader is safe for an action; under another root, (pid, start tick) from its
 * {@code stat}.
 */
final class ProcessKeys {
    private final Path root;
    private final KernelConstants constants;
    private final boolean live;
    private final Supplier<? extends ProcessTable> liveTable;

    /**
     * @param root      the procfs root
     * @param constants the kernel's constants, for start times under another root
     * @param liveTable the process table of the live {@code /proc}, asked only when the root is the live one
     */
    ProcessKeys(Path root, KernelConstants constants, Supplier<? extends ProcessTable> liveTable) {
        this.root = root;
        this.constants = constants;
        this.live = root.toAbsolutePath().normalize().equals(Path.of("/proc"));
        this.liveTable = Objects.requireNonNull(liveTable, "liveTable");
    }

    ProcessKey key(long pid) {
        Pids.requireValid(pid);
        if (live) {
            return liveTable.get().key(pid);
        }
        Path dir = root.resolve(Long.toString(pid));
        ProcBuffer buf = new ProcBuffer(4096);
        long start = ProcessLiveness.read(pid, dir, buf, constants).startTimeTicks();
        if (buf.read(dir.resolve("status")) == ProcBuffer.Result.OK) {
            long tgid = LinuxProcfs.tgidOf(buf.bytes(), buf.length());
            if (tgid >= 0 && tgid != pid) {
                throw new NoSuchProcessException(pid, "no such process: " + pid + " is a thread of process " + tgid);
            }
        }
        return new ProcessKey(pid, start);
    }
}
