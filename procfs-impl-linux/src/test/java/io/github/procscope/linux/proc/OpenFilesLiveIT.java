package io.github.procscope.linux.proc;

import io.github.procscope.api.Procscope;
import io.github.procscope.api.core.DeviceNumber;
import io.github.procscope.api.core.NoSuchProcessException;
import io.github.procscope.api.disk.FileSystemUsage;
import io.github.procscope.api.files.AccessMode;
import io.github.procscope.api.files.DeletedFile;
import io.github.procscope.api.files.DeletedFilesScan;
import io.github.procscope.api.files.DeletedSpace;
import io.github.procscope.api.files.FdKind;
import io.github.procscope.api.files.OpenFd;
import io.github.procscope.api.files.OpenFiles;
import io.github.procscope.api.files.OpenFlag;
import io.github.procscope.testing.Commands;
import io.github.procscope.testing.ScriptedProcess;
import io.github.procscope.testing.Spawned;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/** {@link LinuxOpenFiles} against processes this test starts, cross-checked with {@code lsof} and {@code df}. */
class OpenFilesLiveIT {
    private static final long MIB = 1 << 20;
    private final LinuxOpenFiles files = LinuxOpenFiles.at(Path.of("/proc"), () -> LinuxProcfs.at(Path.of("/proc")));
    private final LinuxSystemResources system = LinuxSystemResources.at(Path.of("/proc"), Path.of("/sys"));

    @Test
    void descriptorsCarryKindFlagsPositionAndSize(@TempDir Path dir) {
        try (Spawned spawned = new Spawned()) {
            ScriptedProcess p = ScriptedProcess.start(spawned);
            int appendFd = Integer.parseInt(p.send("open " + dir.resolve("log") + " wronly,append,creat,cloexec"));
            int nonblockFd = Integer.parseInt(p.send("open " + dir + " rdonly,nonblock"));
            int dataFd = Integer.parseInt(p.send("mkfile " + dir.resolve("data") + " 2"));
            int nullFd = Integer.parseInt(p.send("open /dev/null rdwr"));
            Map<Integer, OpenFd> byFd = new TreeMap<>();
            for (OpenFd fd : files.fds(p.pid())) {
                byFd.put(fd.fd(), fd);
            }

            OpenFd log = byFd.get(appendFd);
            assertEquals(FdKind.REGULAR_FILE, log.kind());
            assertEquals(Optional.of(dir.resolve("log").toString()), log.path());
            assertEquals(AccessMode.WRITE_ONLY, log.flags().accessMode());
            assertTrue(log.flags().has(OpenFlag.O_APPEND) && log.flags().has(OpenFlag.O_CLOEXEC), log.flags().toString());
            assertFalse(log.deleted());
            assertEquals(1, log.linkCount().getAsLong());

            OpenFd d = byFd.get(nonblockFd);
            assertEquals(FdKind.DIRECTORY, d.kind());
            assertTrue(d.flags().has(OpenFlag.O_NONBLOCK));
            assertFalse(d.flags().has(OpenFlag.O_CLOEXEC));

            OpenFd data = byFd.get(dataFd);
            assertEquals(2 * MIB, data.sizeBytes().getAsLong());
            assertEquals(2 * MIB, data.positionBytes(), "the helper wrote 2 MiB through it");
            assertTrue(data.allocatedBytes().getAsLong() >= 2 * MIB);
            assertEquals(AccessMode.READ_WRITE, data.flags().accessMode());
            assertTrue(data.mountId().isPresent(), "Linux 3.15+ prints mnt_id");

            OpenFd devnull = byFd.get(nullFd);
            assertEquals(FdKind.CHARACTER_DEVICE, devnull.kind());
            assertEquals(Optional.of(new DeviceNumber(1, 3)), devnull.openedDevice());
            assertTrue(devnull.sizeBytes().isEmpty(), "a device's size means nothing");

            OpenFd stdin = byFd.get(0);
            assertEquals(FdKind.PIPE, stdin.kind(), "the helper's stdin is a pipe from this JVM");
            assertTrue(stdin.target().startsWith("pipe:["));
            assertTrue(stdin.path().isEmpty());
        }
    }

    @Test
    void descriptorsAgreeWithLsof(@TempDir Path dir) {
        assumeTrue(Commands.available("lsof"), "lsof is not installed");
        try (Spawned spawned = new Spawned()) {
            ScriptedProcess p = ScriptedProcess.start(spawned);
            p.send("open /etc/hostname rdonly,cloexec");
            p.send("open " + dir + " rdonly");
            p.send("mkfile " + dir.resolve("kept") + " 1");
            p.send("mkfile " + dir.resolve("gone") + " 1");
            p.send("open /dev/null wronly");
            deleteQuietly(dir.resolve("gone"));
            List<OpenFd> ours = files.fds(p.pid());
            Map<Integer, String[]> lsof = lsof(p.pid());
            List<Integer> ourFds = new ArrayList<>();
            ours.forEach(f -> ourFds.add(f.fd()));
            assertEquals(new ArrayList<>(lsof.keySet()), ourFds, "the same descriptors");
            for (OpenFd fd : ours) {
                String[] l = lsof.get(fd.fd());
                assertEquals(l[0], lsofType(fd), "type of fd " + fd.fd() + " " + fd.target());
                if (fd.kind() == FdKind.REGULAR_FILE || fd.kind() == FdKind.DIRECTORY
                        || fd.kind() == FdKind.CHARACTER_DEVICE) {
                    assertEquals(l[1], fd.target(), "name of fd " + fd.fd());
                }
                assertEquals(l[2], switch (fd.flags().accessMode()) {
                    case READ_ONLY -> "r";
                    case WRITE_ONLY -> "w";
                    case READ_WRITE -> "u";
                    case IOCTL_ONLY -> " ";
                }, "access of fd " + fd.fd());
                if (fd.kind() == FdKind.REGULAR_FILE) {
                    assertEquals(l[3], "0t" + fd.positionBytes(), "offset of fd " + fd.fd());
                }
            }
            assertTrue(ours.stream().anyMatch(f -> f.deleted() && f.target().endsWith("/gone (deleted)")));
        }
    }

    /** @return fd -> {type, name, access, offset} from {@code lsof -p PID}, numeric descriptors only, ascending */
    private static Map<Integer, String[]> lsof(long pid) {
        String out = Commands.run("lsof", "-w", "-o", "-p", Long.toString(pid), "-F", "ftnao");
        Map<Integer, String[]> m = new TreeMap<>();
        String[] current = null;
        for (String line : out.split("\n")) {
            if (line.isEmpty()) {
                continue;
            }
            char tag = line.charAt(0);
            String v = line.substring(1);
            if (tag == 'f') {
                current = null;
                if (!v.isEmpty() && v.chars().allMatch(Character::isDigit)) {
                    current = new String[] {"", "", " ", ""};
                    m.put(Integer.parseInt(v), current);
                }
            } else if (current != null) {
                switch (tag) {
                    case 't': current[0] = v; break;
                    case 'n': current[1] = v; break;
                    case 'a': current[2] = v; break;
                    case 'o': current[3] = v; break;
                    default: break;
                }
            }
        }
        return m;
    }

    private static String lsofType(OpenFd fd) {
        switch (fd.kind()) {
            case REGULAR_FILE: return "REG";
            case DIRECTORY: return "DIR";
            case CHARACTER_DEVICE: return "CHR";
            case BLOCK_DEVICE: return "BLK";
            case PIPE: return "FIFO";
            case SOCKET: return fd.target().startsWith("socket:") ? "sock" : "unix";
            case ANON_INODE: return "a_inode";
            default: return "?";
        }
    }

    @Test
    void aDeletedFileHeldOpenKeepsItsSpaceUntilTheHolderEnds() throws Exception {
        assumeTrue("root".equals(System.getProperty("user.name")), "needs root to mount a small tmpfs");
        Path mnt = Files.createTempDirectory("procscope-deleted");
        Commands.run("mount", "-t", "tmpfs", "-o", "size=256m", "procscope-test", mnt.toString());
        try (Spawned spawned = new Spawned()) {
            FileSystemUsage empty = system.fileSystem(mnt);
            assertEquals(mnt.toString(), empty.mountPoint());
            assertEquals("tmpfs", empty.mount().fsType());
            assertEquals(256 * MIB, empty.sizeBytes());

            ScriptedProcess holder = ScriptedProcess.start(spawned);
            Path big = mnt.resolve("big.log");
            int fd = Integer.parseInt(holder.send("mkfile " + big + " 64"));
            long withFile = system.fileSystem(mnt).availableBytes();
            assertEquals(empty.availableBytes() - 64 * MIB, withFile);

            Files.delete(big);
            assertFalse(Files.exists(big));
            long afterDelete = system.fileSystem(mnt).availableBytes();
            assertEquals(withFile, afterDelete, "deleting the name gave nothing back: the holder still has the file");
            // the df/du gap: df counts the 64 MiB as used, du finds no file that holds them
            assertTrue(system.fileSystem(mnt).usedBytes() >= 64 * MIB);
            assertEquals(0, system.directoryUsage(mnt, 0).files());
            assertTrue(system.directoryUsage(mnt, 0).total().allocatedBytes() < MIB);

            OpenFd held = files.fds(holder.pid()).stream().filter(f -> f.fd() == fd).findFirst().orElseThrow();
            assertTrue(held.deleted());
            assertEquals(Optional.of(big.toString()), held.path());
            assertEquals(big + " (deleted)", held.target());
            assertEquals(64 * MIB, held.sizeBytes().getAsLong());
            assertEquals(0, held.linkCount().getAsLong());
            assertTrue(held.holdsDeletedSpace());

            DeletedFilesScan scan = files.deletedFiles();
            DeletedFile found = scan.files().stream().filter(f -> f.pid() == holder.pid() && f.fd() == fd)
                    .findFirst().orElseThrow(() -> new AssertionError("the scan does not name the holder: " + scan));
            assertEquals(big.toString(), found.path());
            assertEquals(64 * MIB, found.sizeBytes());
            assertEquals(64 * MIB, found.allocatedBytes());
            assertEquals("memhelper", found.comm());
            assertEquals(held.device().orElseThrow(), found.device());
            DeletedSpace space = scan.fileSystems().stream().filter(s -> s.device().equals(found.device()))
                    .findFirst().orElseThrow();
            assertEquals(Optional.of(mnt.toString()), space.mountPoint());
            assertEquals(Optional.of("tmpfs"), space.fsType());
            assertEquals(1, space.files());
            assertEquals(64 * MIB, space.allocatedBytes());
            assertTrue(scan.processesScanned() > 1);

            holder.process().toHandle().destroyForcibly(); // ends the holder by its pid
            holder.process().waitFor();
            Spawned.await(Duration.ofSeconds(30), "the space to come back after the holder ended",
                    () -> system.fileSystem(mnt).availableBytes() == empty.availableBytes());
            assertTrue(files.deletedFiles().files().stream().noneMatch(f -> f.pid() == holder.pid()));
        } finally {
            Commands.run("umount", mnt.toString());
            Files.delete(mnt);
        }
    }

    @Test
    void theScanToleratesProcessesThatComeAndGo() {
        try (Spawned spawned = new Spawned()) {
            spawned.start("sh", "-c", "while :; do /bin/true; done");
            spawned.start("sh", "-c", "while :; do sleep 0.001; done");
            for (int i = 0; i < 5; i++) {
                DeletedFilesScan scan = files.deletedFiles();
                assertTrue(scan.processesScanned() > 0);
                if ("root".equals(System.getProperty("user.name"))) {
                    // Root reads every process except those whose descriptors the kernel refuses even to root
                    // (pid 1 under some security modules); the churning processes are never among them.
                    for (long pid : scan.unreadablePids()) {
                        assertTrue(descriptorsRefused(pid), "pid " + pid + " is listed unreadable but can be read");
                    }
                }
            }
        }
    }

    @Test
    void aProcessThatExitedIsNoSuchProcess() throws Exception {
        Process p = new ProcessBuilder("true").start();
        long pid = p.pid();
        p.waitFor();
        Spawned.await(Duration.ofSeconds(10), "the child to be reaped", () -> !Files.exists(Path.of("/proc/" + pid)));
        assumeTrue(!Files.exists(Path.of("/proc/" + pid)), "pid reused at once");
        assertThrows(NoSuchProcessException.class, () -> files.fds(pid));
        assertThrows(IllegalArgumentException.class, () -> files.fds(0));
        assertThrows(IllegalArgumentException.class, () -> files.fds(-1));
    }

    @Test
    void serviceLoaderFindsTheLinuxImplementation() {
        assertInstanceOf(LinuxOpenFiles.class, Procscope.system().openFiles());
    }

    private static void deleteQuietly(Path p) {
        try {
            Files.deleteIfExists(p);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** @return whether the descriptors of {@code pid} cannot be examined by this user, or it is gone */
    private static boolean descriptorsRefused(long pid) {
        Path fdDir = Path.of("/proc", Long.toString(pid), "fd");
        try (var s = Files.list(fdDir)) {
            for (Path fd : (Iterable<Path>) s::iterator) {
                try {
                    Files.readAttributes(fd, "unix:ino");
                } catch (java.nio.file.AccessDeniedException e) {
                    return true;
                } catch (IOException e) {
                    // closed meanwhile
                }
            }
            return false;
        } catch (java.nio.file.AccessDeniedException e) {
            return true;
        } catch (IOException | UncheckedIOException e) {
            return !Files.exists(fdDir);
        }
    }
}
