package io.github.procscope.readme;

import io.github.procscope.api.SystemResources;
import io.github.procscope.api.disk.DirectoryUsage;
import io.github.procscope.api.disk.FileSystemUsage;
import io.github.procscope.api.disk.IoStat;
import io.github.procscope.api.files.DeletedFile;
import io.github.procscope.api.files.OpenFd;
import io.github.procscope.api.files.OpenFiles;
import io.github.procscope.api.memory.MemoryTotals;
import io.github.procscope.api.memory.ProcessMemory;
import io.github.procscope.api.memory.SystemMemory;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;

import static org.junit.jupiter.api.Assertions.assertTrue;

/** The README's "Memory, open files and disks" snippet, compiled and run against this machine with the public API only. */
class MemoryFilesDisksReadmeTest {

    /** The snippet, as the README shows it. */
    static void snippet(PrintStream out) {
        long pid = ProcessHandle.current().pid();

        // How much memory does this process really use?
        MemoryTotals t = ProcessMemory.system().totals(pid);
        out.printf("VSZ %d  RSS %d  PSS %d  USS %d  swap %d%n",
                t.vszBytes(), t.rssBytes(), t.pssBytes(), t.ussBytes(), t.swapBytes());

        // What does it hold open, and who holds deleted files?
        OpenFiles files = OpenFiles.system();
        for (OpenFd fd : files.fds(pid)) {
            out.println(fd.fd() + " " + fd.kind() + " " + fd.target() + " " + fd.flags());
        }
        for (DeletedFile f : files.deletedFiles().files()) {
            out.println(f.command() + "[" + f.pid() + "] fd " + f.fd() + " holds "
                    + f.allocatedBytes() + " bytes of deleted " + f.path());
        }

        // free, the container's ceiling, df, du and iostat -x
        SystemResources sys = SystemResources.system();
        SystemMemory mem = sys.memory();
        out.printf("total %d  available %d  used %d%n", mem.totalBytes(), mem.availableBytes(), mem.usedBytes());
        sys.cgroupMemory().ifPresent(c -> out.println("cgroup " + c.cgroupPath()
                + " limit " + c.effectiveLimitBytes() + " usage " + c.usageBytes()));
        FileSystemUsage root = sys.fileSystem(Path.of("/"));
        out.printf("%s %d%% used, %d bytes available, %d%% of inodes used%n", root.mountPoint(),
                root.usePercent().orElse(0), root.availableBytes(), root.inodeUsePercent().orElse(0));
        DirectoryUsage etc = sys.directoryUsage(Path.of("/etc"), 5);
        etc.largest().forEach(d -> out.println(d.allocatedBytes() + "\t" + d.path()));
        for (IoStat io : sys.ioStat(Duration.ofSeconds(1))) {
            out.printf("%s r/s %.1f w/s %.1f r_await %.2f w_await %.2f aqu-sz %.2f %%util %.1f%n", io.name(),
                    io.readsPerSecond(), io.writesPerSecond(), io.readAwaitMillis(), io.writeAwaitMillis(),
                    io.averageQueueSize(), io.utilizationPercent());
        }
    }

    @Test
    void snippetRuns() {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        snippet(new PrintStream(bytes, true, StandardCharsets.UTF_8));
        String out = bytes.toString(StandardCharsets.UTF_8);
        System.out.print(out);
        assertTrue(out.contains("VSZ ") && out.contains("available") && out.contains("% used"), out);
    }
}
