package io.github.procscope.nvml;

import io.github.procscope.api.Procscope;
import io.github.procscope.api.core.NoSuchProcessException;
import io.github.procscope.api.files.DeletedFilesScan;
import io.github.procscope.api.files.HeldFile;
import io.github.procscope.api.files.HeldFilesScan;
import io.github.procscope.api.files.OpenFd;
import io.github.procscope.api.files.OpenFiles;
import io.github.procscope.api.gpu.GpuFdScan;
import io.github.procscope.api.gpu.GpuFdUser;
import io.github.procscope.testing.Commands;
import io.github.procscope.testing.Spawned;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/** Finding GPU users through their open {@code /dev/nvidia*} descriptors, as the open-file reader lists them. */
class DeviceFileScannerIT {

    @Test
    void devicesAndControlFilesAreTold(@TempDir Path dir) throws IOException {
        FakeProc proc = new FakeProc(dir)
                .process(10, "python", 1, 10, 10).fd(10, 0, "/dev/null").fd(10, 3, "/dev/nvidiactl")
                .fd(10, 4, "/dev/nvidia-uvm").fd(10, 5, "/dev/nvidia1").fd(10, 6, "/dev/nvidia0")
                .fd(10, 7, "/dev/nvidia1").fd(10, 8, "socket:[12345]").fd(10, 9, "/dev/nvidia-caps/nvidia-cap1")
                .process(11, "bash", 1, 11, 11).fd(11, 0, "/dev/pts/0").fd(11, 1, "/dev/nvidia")
                .process(12, "sleep", 1, 12, 12).fd(12, 0, "/dev/null")
                .process(13, "nvidia-smi", 1, 13, 13).fd(13, 3, "/dev/nvidiactl")
                .process(14, "odd", 1, 14, 14).fd(14, 3, "/dev/nvidia99999999999");
        Files.createDirectories(dir.resolve("self"));
        Files.createDirectories(dir.resolve("15")); // a process that exited: no fd directory any more
        Files.writeString(dir.resolve("16"), "not a process directory");
        DeviceFileScanner scanner = new DeviceFileScanner(Procscope.at(proc.root(), dir.resolve("sys")).openFiles());
        GpuFdScan scan = scanner.scan();
        assertTrue(scan.isComplete());
        assertEquals(List.of(10L, 11L, 13L, 14L), scan.users().stream().map(GpuFdUser::pid).toList());
        GpuFdUser python = scan.users().get(0);
        assertEquals(List.of(0, 1), List.copyOf(python.deviceMinors()));
        assertEquals(List.of("/dev/nvidia-caps/nvidia-cap1", "/dev/nvidia-uvm", "/dev/nvidiactl"), List.copyOf(python.otherFiles()));
        assertEquals(Set.of("/dev/nvidia"), scan.users().get(1).otherFiles());
        assertEquals(Set.of(), scan.users().get(2).deviceMinors(), "nvidia-smi holds only the control device");
        assertEquals(Set.of("/dev/nvidia99999999999"), scan.users().get(3).otherFiles(), "no int minor: an other file");
        assertEquals(Optional.empty(), scanner.scan(12));
        assertThrows(NoSuchProcessException.class, () -> scanner.scan(15));
        assertThrows(IllegalArgumentException.class, () -> scanner.scan(0));
    }

    @Test
    void anEmptyPrefixIsRefused(@TempDir Path dir) {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> new DeviceFileScanner(Procscope.system().openFiles(), ""));
        assertTrue(e.getMessage().contains("prefix"), e.getMessage());
    }

    /** An open-file reader that answers one scan and counts what it is asked. */
    private static final class ScriptedOpenFiles implements OpenFiles {
        final List<String> asked = new ArrayList<>();

        @Override
        public List<OpenFd> fds(long pid) {
            asked.add("fds " + pid);
            return List.of();
        }

        @Override
        public io.github.procscope.api.core.ProcessKey key(long pid) {
            asked.add("key " + pid);
            throw new UnsupportedOperationException();
        }

        @Override
        public DeletedFilesScan deletedFiles() {
            asked.add("deletedFiles");
            throw new UnsupportedOperationException();
        }

        @Override
        public HeldFilesScan heldFiles(String targetPrefix) {
            asked.add("heldFiles " + targetPrefix);
            return new HeldFilesScan(List.of(new HeldFile(30, 4, "/dev/nvidia2"), new HeldFile(30, 3, "/dev/nvidiactl"),
                    new HeldFile(31, 9, "/dev/nvidia0 (deleted)")), 5, List.of(1L, 40L));
        }
    }

    @Test
    void theDescriptorsComeFromTheOpenFilesReaderGiven() {
        ScriptedOpenFiles files = new ScriptedOpenFiles();
        GpuFdScan scan = new DeviceFileScanner(files).scan();
        assertEquals(List.of("heldFiles /dev/nvidia"), files.asked, "one question, to the reader given");
        assertEquals(List.of(new GpuFdUser(30, Set.of(2), Set.of("/dev/nvidiactl")),
                new GpuFdUser(31, Set.of(), Set.of("/dev/nvidia0 (deleted)"))), scan.users());
        assertEquals(List.of(1L, 40L), scan.unreadablePids(), "unreadable processes are passed on");
        assertFalse(scan.isComplete());
    }

    @Test
    void aLiveProcessHoldingADeviceFileIsFound(@TempDir Path dir) throws IOException {
        Path device = Files.writeString(dir.resolve("nvidia7"), "");
        try (Spawned spawned = new Spawned()) {
            Process p = spawned.start(new ProcessBuilder("sleep", "600").redirectInput(device.toFile()));
            String prefix = dir.resolve("nvidia").toString();
            DeviceFileScanner scanner = new DeviceFileScanner(Procscope.system().openFiles(), prefix);
            Spawned.await(Duration.ofSeconds(60), "the child to hold the file",
                    () -> scanner.scan(p.pid()).isPresent());
            GpuFdUser u = scanner.scan(p.pid()).orElseThrow();
            assertEquals(Set.of(7), u.deviceMinors());
            GpuFdScan all = scanner.scan();
            assertTrue(all.users().stream().anyMatch(x -> x.pid() == p.pid() && x.deviceMinors().equals(Set.of(7))));
            // Root may still be refused some (a non-dumpable PID 1 of a sandbox): those are listed, not fatal.
            assertFalse(all.unreadablePids().contains(p.pid()));
            assertFalse(all.unreadablePids().contains(ProcessHandle.current().pid()));
        }
    }

    /** Run as {@code nobody}: scans {@code /proc} and prints the counts. */
    public static final class ScanAsOtherUser {
        private ScanAsOtherUser() {
        }

        public static void main(String[] args) {
            GpuFdScan scan = new DeviceFileScanner(Procscope.system().openFiles(), args[0]).scan();
            System.out.println("users=" + scan.users().stream().map(u -> u.pid() + ":" + u.deviceMinors()).toList()
                    + " unreadable=" + scan.unreadablePids().size());
        }
    }

    @Test
    void anotherUsersDescriptorsAreUnreadableNotAnError(@TempDir Path dir) throws IOException {
        assumeTrue(Commands.available("setpriv"), "setpriv is needed to run as another user");
        assumeTrue("root".equals(System.getProperty("user.name")), "only root can switch to nobody");
        Path device = Files.writeString(dir.resolve("nvidia3"), "");
        dir.toFile().setExecutable(true, false);
        try (Spawned spawned = new Spawned()) {
            Process holder = spawned.start(new ProcessBuilder("sleep", "600").redirectInput(device.toFile()));
            List<String> cmd = new java.util.ArrayList<>(List.of("setpriv", "--reuid=nobody", "--regid=nogroup",
                    "--clear-groups"));
            cmd.addAll(Spawned.javaCommand(List.of(), ScanAsOtherUser.class, dir.resolve("nvidia").toString()).command());
            Process scanner = spawned.start(new ProcessBuilder(cmd).redirectError(ProcessBuilder.Redirect.INHERIT));
            String line = Spawned.readLine(scanner, Duration.ofSeconds(60));
            assertTrue(line.startsWith("users=[] unreadable="), line + " (holder " + holder.pid() + ")");
            int unreadable = Integer.parseInt(line.substring(line.indexOf("unreadable=") + 11));
            assertTrue(unreadable > 0, "root's processes, the holder among them, are unreadable to nobody: " + line);
            assertFalse(line.contains(holder.pid() + ":"));
        }
    }
}
