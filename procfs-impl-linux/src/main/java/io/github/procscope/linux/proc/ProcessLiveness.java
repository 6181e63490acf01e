package io.github.procscope.linux.proc;

import io.github.procscope.api.core.NoSuchProcessException;
import io.github.procscope.api.process.ProcessStat;
import io.github.procscope.api.process.ProcessState;
import io.github.procscope.linux.parse.StatParser;
import io.github.procscope.linux.sys.KernelConstants;
import io.github.procscope.linux.sys.ProcBuffer;
import io.github.procscope.linux.sys.ReadFailures;

import java.nio.file.Path;

/**
 * The check that makes a per-process reading whole: after reading a file whose content ends early when the
 * process exits during the read ({@code maps}, {@code smaps}, the {@code fd} directory), the process's
 * {@code stat} is read again. If the process is gone, a zombie, or exiting ({@code PF_EXITING}), what was
 * read may be cut short, so it is reported as "no such process" rather than returned.
 */
final class ProcessLiveness {
    /** {@code PF_EXITING} in {@code linux/sched.h}: the task is being torn down. */
    static final long PF_EXITING = 0x4;

    private ProcessLiveness() {
    }

    /**
     * @param pid    the process
     * @param pidDir its directory, {@code /proc/PID}
     * @param buf    a buffer to read with
     * @param k      the kernel constants for the stat parser
     * @return its stat, read now
     * @throws NoSuchProcessException if it is gone, a zombie, or exiting
     */
    static ProcessStat requireRunning(long pid, Path pidDir, ProcBuffer buf, KernelConstants k) {
        ProcessStat stat = read(pid, pidDir, buf, k);
        if (exited(stat)) {
            throw exitedWhileRead(pid);
        }
        return stat;
    }

    /**
     * @return the process's stat, read now
     * @throws NoSuchProcessException if it is gone
     */
    static ProcessStat read(long pid, Path pidDir, ProcBuffer buf, KernelConstants k) {
        Path file = pidDir.resolve("stat");
        ProcBuffer.Result r = buf.read(file);
        if (r != ProcBuffer.Result.OK) {
            throw ReadFailures.translate(pid, pidDir, file, r);
        }
        return StatParser.parse(file, buf.bytes(), buf.length(), k);
    }

    /** @return whether the process has exited or is exiting */
    static boolean exited(ProcessStat stat) {
        return stat.state() == ProcessState.ZOMBIE || stat.state() == ProcessState.DEAD
                || (stat.flags() & PF_EXITING) != 0;
    }

    static NoSuchProcessException exitedWhileRead(long pid) {
        return new NoSuchProcessException(pid, "no such process: pid " + pid
                + " exited while it was being read (what was read may be incomplete, so none of it is returned)");
    }
}
