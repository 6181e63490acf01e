package io.github.procscope.linux.proc;

import io.github.procscope.api.core.NoSuchProcessException;
import io.github.procscope.api.core.ProcessKey;
import io.github.procscope.api.core.ProcfsParseException;
import io.github.procscope.api.files.AccessMode;
import io.github.procscope.api.files.FdKind;
import io.github.procscope.api.files.OpenFd;
import io.github.procscope.api.files.OpenFlag;
import io.github.procscope.linux.sys.FileStatus;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.OptionalLong;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@link LinuxOpenFiles} on a procfs tree built in a temporary directory: {@code fd} entries are symbolic links
 * whose targets read like the kernel's, most of them dangling (as sockets, pipes and deleted files would be
 * outside procfs), so the kinds are taken from the link text when the target cannot be examined.
 */
class LinuxOpenFilesTest {
    @TempDir
    Path proc;
    Path realFile;

    @BeforeEach
    void build() throws IOException {
        Path pid = Files.createDirectories(proc.resolve("4242"));
        Files.writeString(pid.resolve("stat"), "4242 (trainer) S 1 4242 4242 0 -1 4194304 101 0 0 0 0 0 0 0 20 0 1 0 "
                + "180930 3133440 393 18446744073709551615 1 1 0 0 0 0 0 0 0 0 0 0 17 1 0 0 0 0 0 0 0 0 0 0 0 0 0\n");
        Path fd = Files.createDirectories(pid.resolve("fd"));
        Path info = Files.createDirectories(pid.resolve("fdinfo"));
        realFile = Files.write(proc.resolve("weights.bin"), new byte[12345]);
        link(fd, info, 0, "pipe:[77]", "pos:\t0\nflags:\t00\nmnt_id:\t15\nino:\t77\n");
        link(fd, info, 1, realFile.toString(), "pos:\t4096\nflags:\t02102001\nmnt_id:\t27\nino:\t9\n");
        link(fd, info, 3, "socket:[1234]", "pos:\t0\nflags:\t02000002\nmnt_id:\t10\nino:\t1234\n");
        link(fd, info, 4, "anon_inode:[eventfd]", "pos:\t0\nflags:\t02004002\nmnt_id:\t16\nino:\t1057\n"
                + "eventfd-count:                0\neventfd-id: 3\n");
        link(fd, info, 7, "/data/old.log (deleted)", "pos:\t100\nflags:\t0100001\n");
        Files.createSymbolicLink(fd.resolve("9"), Path.of("/closed/meanwhile")); // no fdinfo: it was closed
        Files.createSymbolicLink(fd.resolve("notanfd"), Path.of("/x"));
    }

    private static void link(Path fd, Path info, int n, String target, String fdinfo) throws IOException {
        Files.createSymbolicLink(fd.resolve(Integer.toString(n)), Path.of(target));
        Files.writeString(info.resolve(Integer.toString(n)), fdinfo);
    }

    @Test
    void readsByKeyCheckTheProcessIsStillTheOneNamed() {
        LinuxOpenFiles files = LinuxOpenFiles.at(proc, () -> LinuxProcfs.at(proc));
        ProcessKey key = files.key(4242);
        assertEquals(files.fds(4242), files.fds(key));
        NoSuchProcessException e = assertThrows(NoSuchProcessException.class,
                () -> files.fds(new ProcessKey(4242, key.startTimeTicks() + 1)));
        assertTrue(e.getMessage().contains("reused"), e.getMessage());
    }

    @Test
    void everyDescriptorIsReadAndClosedOnesAreLeftOut() {
        List<OpenFd> fds = LinuxOpenFiles.at(proc, () -> LinuxProcfs.at(proc)).fds(4242);
        assertEquals(List.of(0, 1, 3, 4, 7), fds.stream().map(OpenFd::fd).toList());

        OpenFd pipe = fds.get(0);
        assertEquals(FdKind.PIPE, pipe.kind());
        assertEquals(Optional.empty(), pipe.path());
        assertEquals(OptionalLong.of(77), pipe.inode(), "from fdinfo when the target cannot be examined");
        assertEquals(OptionalLong.empty(), pipe.linkCount());

        OpenFd file = fds.get(1);
        assertEquals(FdKind.REGULAR_FILE, file.kind());
        assertEquals(Optional.of(realFile.toString()), file.path());
        assertEquals(OptionalLong.of(12345), file.sizeBytes());
        assertEquals(OptionalLong.of(1), file.linkCount());
        assertEquals(4096, file.positionBytes());
        assertEquals(AccessMode.WRITE_ONLY, file.flags().accessMode());
        assertTrue(file.flags().has(OpenFlag.O_APPEND));
        assertEquals(OptionalInt.of(27), file.mountId());
        assertFalse(file.deleted());

        assertEquals(FdKind.SOCKET, fds.get(2).kind());
        OpenFd eventfd = fds.get(3);
        assertEquals(FdKind.ANON_INODE, eventfd.kind());
        assertEquals(Optional.of("eventfd"), eventfd.anonInodeType());
        assertTrue(eventfd.flags().has(OpenFlag.O_NONBLOCK));

        OpenFd deleted = fds.get(4);
        assertTrue(deleted.deleted());
        assertEquals(Optional.of("/data/old.log"), deleted.path());
        assertEquals("/data/old.log (deleted)", deleted.target());
        assertEquals(FdKind.UNKNOWN, deleted.kind(), "a dangling path cannot be examined");
        assertEquals(OptionalInt.empty(), deleted.mountId());
    }

    @Test
    void aMissingProcessIsNoSuchProcess() {
        assertThrows(NoSuchProcessException.class, () -> LinuxOpenFiles.at(proc, () -> LinuxProcfs.at(proc)).fds(5555));
    }

    @Test
    void aMalformedFdinfoIsAParseErrorNamingTheFile() throws IOException {
        Files.writeString(proc.resolve("4242/fdinfo/3"), "pos:\tnope\nflags:\t02\n");
        ProcfsParseException e = assertThrows(ProcfsParseException.class, () -> LinuxOpenFiles.at(proc, () -> LinuxProcfs.at(proc)).fds(4242));
        assertTrue(e.getMessage().contains("4242/fdinfo/3"), e.getMessage());
    }

    @Test
    void descriptorNamesAreParsedStrictly() {
        assertEquals(0, LinuxOpenFiles.parseFd("0"));
        assertEquals(2147483647, LinuxOpenFiles.parseFd("2147483647"));
        assertEquals(-1, LinuxOpenFiles.parseFd("2147483648"));
        assertEquals(-1, LinuxOpenFiles.parseFd(""));
        assertEquals(-1, LinuxOpenFiles.parseFd("1a"));
    }

    @Test
    void kindsFromTheFileTypeOrTheLinkText() {
        assertEquals(FdKind.REGULAR_FILE, LinuxOpenFiles.kind("/x", true, FileStatus.S_IFREG));
        assertEquals(FdKind.BLOCK_DEVICE, LinuxOpenFiles.kind("/dev/sda", true, FileStatus.S_IFBLK));
        assertEquals(FdKind.SYMLINK, LinuxOpenFiles.kind("/l", true, FileStatus.S_IFLNK));
        assertEquals(FdKind.ANON_INODE, LinuxOpenFiles.kind("anon_inode:[pidfd]", true, FileStatus.S_IFREG));
        assertEquals(FdKind.UNKNOWN, LinuxOpenFiles.kind("anon", true, 0));
        assertEquals(FdKind.PIPE, LinuxOpenFiles.kind("pipe:[3]", false, 0));
    }
}
