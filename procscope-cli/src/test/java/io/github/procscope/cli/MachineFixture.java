package io.github.procscope.cli;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URISyntaxException;
import java.net.URL;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.stream.Stream;

/**
 * The fixture machine under {@code src/test/resources/machine}: a GPU training node written by hand in the
 * kernel's formats (a training run with DataLoader workers and a zombie, a ghost worker re-parented to PID 1, a
 * nohup'd job, a command named {@code a) (b c}), copied to a scratch directory so that the descriptor links,
 * which a resource tree cannot hold, can be made: {@code /proc/PID/fd} entries are symbolic links whose text
 * reads like the kernel's.
 */
final class MachineFixture implements AutoCloseable {
    private final Path root;

    private MachineFixture(Path root) {
        this.root = root;
    }

    static MachineFixture create() {
        try {
            URL url = MachineFixture.class.getResource("/machine");
            if (url == null) {
                throw new AssertionError("no fixture tree 'machine' on the test class path");
            }
            Path src = Path.of(url.toURI());
            Path root = Files.createTempDirectory("procscope-machine-");
            try (Stream<Path> s = Files.walk(src)) {
                for (Path p : (Iterable<Path>) s::iterator) {
                    Path d = root.resolve(src.relativize(p).toString());
                    if (Files.isDirectory(p)) {
                        Files.createDirectories(d);
                    } else {
                        Files.copy(p, d);
                    }
                }
            }
            MachineFixture m = new MachineFixture(root);
            m.links();
            return m;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (URISyntaxException e) {
            throw new IllegalStateException(e);
        }
    }

    private void links() throws IOException {
        Path fd = proc().resolve("4100/fd");
        link(fd, 0, "/dev/null");
        link(fd, 1, "/dev/null");
        link(fd, 2, "/dev/null");
        link(fd, 3, "socket:[81234]");
        link(fd, 4, "anon_inode:[eventfd]");
        link(fd, 5, "pipe:[555]");
        link(fd, 6, "/data/ckpt/step-1000.pt (deleted)");
        link(fd, 7, root.resolve("data/train.log").toString());
        Path ghost = proc().resolve("4200/fd");
        link(ghost, 0, "/dev/null");
        link(ghost, 3, "/dev/nvidia1");
    }

    /** Makes {@code /proc/PID/fd/N} a link with the given text. */
    static void link(Path fdDir, int fd, String target) throws IOException {
        Files.createSymbolicLink(fdDir.resolve(Integer.toString(fd)), Path.of(target));
    }

    Path root() {
        return root;
    }

    /** @return the procfs root, for {@code --procfs-root} */
    Path proc() {
        return root.resolve("proc");
    }

    /** @return the sysfs root, for {@code --sysfs-root} */
    Path sys() {
        return root.resolve("sys");
    }

    @Override
    public void close() {
        try (Stream<Path> s = Files.walk(root)) {
            s.sorted(Comparator.reverseOrder()).forEach(p -> {
                try {
                    Files.deleteIfExists(p);
                } catch (IOException e) {
                    throw new UncheckedIOException(e);
                }
            });
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
