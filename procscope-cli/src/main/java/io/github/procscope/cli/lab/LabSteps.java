package io.github.procscope.cli.lab;

import io.github.procscope.api.Procscope;
import io.github.procscope.api.disk.FileSystemUsage;
import io.github.procscope.api.files.DeletedFile;
import io.github.procscope.api.files.OpenFd;
import io.github.procscope.api.files.OpenFiles;
import io.github.procscope.api.system.SystemResources;

import io.github.procscope.api.core.ProcessKey;
import io.github.procscope.api.signals.ExitStatus;
import io.github.procscope.api.signals.SendResult;
import io.github.procscope.api.signals.Signal;
import io.github.procscope.api.signals.Signals;

import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;

/** Steps 6 and 7 of the lab, which observe open files and send signals. */
final class LabSteps {
    private LabSteps() {
    }

    static final long BIG = 64L << 20;

    /**
     * Step 6: a 64 MiB file is made with dd, opened by a sh helper ({@code exec 3< file}) and deleted;
     * the file system's available bytes are read before, after creating, after deleting and after the
     * holder ends.
     */
    static void step6Deleted(Lab lab, LabProcesses procs) {
        SystemResources sys = Procscope.system().resources();
        OpenFiles files = Procscope.system().openFiles();
        // A name of its own: the scratch directory may be the user's, and nothing in it is touched but this file.
        Path big;
        try {
            big = Files.createTempFile(lab.scratch(), "procscope-lab-", "-big.bin");
        } catch (IOException e) {
            throw new UncheckedIOException((Lab.isDiskFull(e) ? "disk full: " : "") + "cannot create a file in "
                    + lab.scratch(), e);
        }
        try {
            FileSystemUsage before = sys.fileSystem(lab.scratch());
            if (before.availableBytes() < BIG) {
                throw new IllegalStateException("disk full: step 6 writes a 64 MiB file, but " + lab.scratch()
                        + " has " + before.availableBytes() + " bytes available");
            }
            Process dd = procs.start(List.of("dd", "if=/dev/zero", "of=" + big, "bs=1M", "count=64", "conv=fsync",
                    "status=none"));
            if (!succeeded(dd)) {
                long avail = sys.fileSystem(lab.scratch()).availableBytes();
                throw new IllegalStateException(avail < (1 << 20) ? "disk full: " + lab.scratch() + " filled up while"
                        + " step 6 wrote its 64 MiB file" : "dd could not write " + big);
            }
            step6Observe(lab, procs, sys, files, big, before);
        } finally {
            try {
                Files.deleteIfExists(big); // the holder deleted it; after a failure, no partial file fills the disk
            } catch (IOException ignored) {
                // the message of the failure stands; the file is named in it
            }
        }
    }

    private static boolean succeeded(Process p) {
        try {
            return p.waitFor(60, TimeUnit.SECONDS) && p.exitValue() == 0;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted", e);
        }
    }

    private static void step6Observe(Lab lab, LabProcesses procs, SystemResources sys, OpenFiles files, Path big,
                                     FileSystemUsage before) {
        FileSystemUsage created = sys.fileSystem(lab.scratch());
        Process holder = procs.start(List.of("sh", "-c", "exec 3< \"$1\"; rm -f \"$1\"; echo held; read line",
                "sh", big.toString()));
        String ready = LabProcesses.readLine(holder);
        if (!ready.equals("held")) {
            throw new IllegalStateException("the holder answered '" + ready + "'");
        }
        FileSystemUsage deleted = sys.fileSystem(lab.scratch());
        OpenFd fd = files.fds(holder.pid()).stream().filter(OpenFd::deleted).findFirst()
                .orElseThrow(() -> new IllegalStateException("the holder " + holder.pid() + " shows no deleted fd"));
        List<DeletedFile> held = files.deletedFiles().files().stream().filter(f -> f.pid() == holder.pid()).toList();
        try (OutputStream in = holder.getOutputStream()) {
            in.write('\n');
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        Lab.await("the holder to end", () -> !holder.isAlive());
        Lab.await("the space to return", () -> sys.fileSystem(lab.scratch()).availableBytes() > deleted.availableBytes()
                + BIG / 2);
        FileSystemUsage after = sys.fileSystem(lab.scratch());

        StringBuilder sb = new StringBuilder();
        sb.append("# 6. Deleted, but the space did not come back\n\n");
        sb.append("dd if=/dev/zero of=big.bin bs=1M count=64; a sh holder opens it (exec 3< big.bin), deletes it, "
                + "and waits.\n\n");
        sb.append(String.format("file system %s (%s) on %s%n%n", after.mountPoint(), after.mount().fsType(),
                after.mount().source()));
        sb.append(String.format("%-28s %16s%n", "", "available bytes"));
        sb.append(String.format("%-28s %16d%n", "before", before.availableBytes()));
        sb.append(String.format("%-28s %16d%n", "after creating big.bin", created.availableBytes()));
        sb.append(String.format("%-28s %16d%n", "after deleting (held open)", deleted.availableBytes()));
        sb.append(String.format("%-28s %16d%n%n", "after the holder ended", after.availableBytes()));
        sb.append("ls -l /proc/").append(holder.pid()).append("/fd/ shows:\n");
        sb.append(String.format("  %d -> %s%n%n", fd.fd(), fd.target()));
        for (DeletedFile f : held) {
            sb.append(String.format("lsof +L1: %s %d fd %d holds %d bytes of %s%n", f.comm(), f.pid(), f.fd(),
                    f.sizeBytes(), f.path()));
        }
        sb.append("\nRemoving a name is not removing the data: the blocks are freed when the last reference (a "
                + "name or an open fd) is gone. A log deleted while a process still writes to it keeps filling the "
                + "disk; df counts it, du cannot find it.\n");
        lab.write("06-deleted.txt", sb.toString());
        lab.fact("holderPid", holder.pid());
        lab.fact("deletedFdLine", fd.fd() + " -> " + fd.target());
        lab.fact("availableBeforeBytes", before.availableBytes());
        lab.fact("availableAfterCreateBytes", created.availableBytes());
        lab.fact("availableAfterDeleteBytes", deleted.availableBytes());
        lab.fact("availableAfterHolderEndsBytes", after.availableBytes());
    }

    /**
     * Step 7: a JVM that handles TERM survives it (still alive afterwards), and KILL ends it with exit
     * status 137 (128 + 9).
     */
    static void step7Signal(Lab lab, LabProcesses procs) {
        Process helper = procs.startJava(LabTermSurvivor.class, "-Xmx32m", "-XX:+UseSerialGC");
        String ready = LabProcesses.readLine(helper);
        if (!ready.equals("ready")) {
            throw new IllegalStateException("the TERM helper answered '" + ready + "'");
        }
        Signals signals = Procscope.system().signals();
        ProcessKey key = lab.table().key(helper.pid());
        SendResult term = signals.send(key, Signal.TERM);
        String caught = LabProcesses.readLine(helper);
        Lab.sleep(300);
        boolean aliveAfterTerm = signals.isAlive(key);
        SendResult kill = signals.send(key, Signal.KILL);
        int status;
        try {
            if (!helper.waitFor(30, TimeUnit.SECONDS)) {
                throw new IllegalStateException("the helper survived KILL");
            }
            status = helper.exitValue();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted", e);
        }
        ExitStatus exit = ExitStatus.fromShellStatus(status);
        StringBuilder sb = new StringBuilder();
        sb.append("# 7. TERM and KILL\n\n");
        sb.append("A JVM helper (pid ").append(helper.pid()).append(") installs a TERM handler that only notes the "
                + "signal and carries on.\n\n");
        sb.append("kill -TERM ").append(helper.pid()).append(": ").append(term.outcome()).append('\n');
        sb.append("  the helper printed: ").append(caught).append('\n');
        sb.append("kill -0 ").append(helper.pid()).append(" afterwards: ")
                .append(aliveAfterTerm ? "alive (it survived TERM)" : "gone").append('\n');
        sb.append("kill -KILL ").append(helper.pid()).append(": ").append(kill.outcome()).append('\n');
        sb.append("exit status: ").append(exit.explainInDetail()).append("\n\n");
        sb.append("TERM is a request: a program may catch it, clean up (save a checkpoint), and exit, or carry on. "
                + "KILL is final: the kernel ends the process and nothing of it runs. Kubernetes sends TERM, waits "
                + "terminationGracePeriodSeconds, then sends KILL for the same reason.\n");
        lab.write("07-signal.txt", sb.toString());
        lab.fact("signalHelperPid", helper.pid());
        lab.fact("aliveAfterTerm", aliveAfterTerm);
        lab.fact("exitStatus", status);
    }
}
