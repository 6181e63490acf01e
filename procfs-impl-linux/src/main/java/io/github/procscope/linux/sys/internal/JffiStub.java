package io.github.procscope.linux.sys.internal;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Locale;
import java.util.zip.CRC32;

/**
 * Puts jnr-ffi's native stub ({@code libjffi}) where jffi loads it without extracting it. Left alone, jffi
 * copies the stub out of its jar into a new {@code jffi*.so} in {@code java.io.tmpdir} (or the current
 * directory when that fails) on every start and deletes it after loading; a JVM killed or exiting during
 * that window leaves the file behind. Instead the stub is copied once into a private per-user cache,
 * {@code $XDG_CACHE_HOME/procscope/jffi-CRC/} (or {@code ~/.cache/...}), created with mode 0700, written
 * under a temporary name in that directory and renamed into place, so a start killed at any moment leaves
 * nothing in the current or temporary directory; the system property {@code jffi.boot.library.path} then
 * names that directory, and jffi loads the stub from there. Nothing is done when that property is already
 * set (the user's choice stands) or when no cache directory can be made (jffi's own way is used).
 */
public final class JffiStub {
    public static final String BOOT_PATH_PROPERTY = "jffi.boot.library.path";
    private static boolean prepared;

    private JffiStub() {
    }

    /** Prepares the stub once per JVM; call before the first use of jnr-ffi or jnr-posix. */
    public static synchronized void prepare() {
        if (prepared) {
            return;
        }
        prepared = true;
        if (System.getProperty(BOOT_PATH_PROPERTY) != null) {
            return;
        }
        Path dir = install();
        if (dir != null) {
            System.setProperty(BOOT_PATH_PROPERTY, dir.toString());
        }
    }

    /** @return the directory holding the stub, or {@code null} if it cannot be put in a private cache */
    public static Path install() {
        String cpu = cpu();
        Path cache = cacheRoot();
        if (cpu == null || cache == null) {
            return null;
        }
        String name = System.mapLibraryName("jffi-" + com.kenai.jffi.Version.MAJOR + "." + com.kenai.jffi.Version.MINOR);
        byte[] stub;
        try (InputStream in = JffiStub.class.getClassLoader().getResourceAsStream("jni/" + cpu + "-Linux/" + name)) {
            if (in == null) {
                return null;
            }
            stub = in.readAllBytes();
        } catch (IOException e) {
            return null;
        }
        CRC32 crc = new CRC32();
        crc.update(stub);
        Path dir = cache.resolve("procscope").resolve(String.format(Locale.ROOT, "jffi-%s-%08x", cpu, crc.getValue()));
        Path lib = dir.resolve(name);
        try {
            if (Files.isRegularFile(lib, LinkOption.NOFOLLOW_LINKS) && Files.size(lib) == stub.length && ownedByUs(dir)) {
                return dir;
            }
            Files.createDirectories(dir, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
            if (!ownedByUs(dir)) {
                return null;
            }
            removeStaleParts(dir);
            Path part = Files.createTempFile(dir, ".part-", ".tmp");
            try {
                Files.write(part, stub);
                try {
                    Files.move(part, lib, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
                } catch (AtomicMoveNotSupportedException e) {
                    Files.move(part, lib, StandardCopyOption.REPLACE_EXISTING);
                }
            } finally {
                Files.deleteIfExists(part);
            }
            return dir;
        } catch (IOException | UnsupportedOperationException | SecurityException e) {
            return null;
        }
    }

    /** Removes copies left by a start killed while writing (older than a minute: not another start's). */
    private static void removeStaleParts(Path dir) {
        long before = System.currentTimeMillis() - 60_000;
        try (java.util.stream.Stream<Path> s = Files.list(dir)) {
            s.filter(p -> p.getFileName().toString().startsWith(".part-")).forEach(p -> {
                try {
                    if (Files.getLastModifiedTime(p, LinkOption.NOFOLLOW_LINKS).toMillis() < before) {
                        Files.deleteIfExists(p);
                    }
                } catch (IOException e) {
                    // another start removed it, or it cannot be: the next start tries again
                }
            });
        } catch (IOException e) {
            // nothing to clean, or not now
        }
    }

    private static boolean ownedByUs(Path dir) throws IOException {
        Object uid = Files.getAttribute(dir, "unix:uid", LinkOption.NOFOLLOW_LINKS);
        Object mode = Files.getAttribute(dir, "unix:mode", LinkOption.NOFOLLOW_LINKS);
        Object me = Files.getAttribute(Path.of("/proc/self"), "unix:uid");
        return uid.equals(me) && mode instanceof Integer && ((Integer) mode & 0022) == 0;
    }

    private static Path cacheRoot() {
        String xdg = System.getenv("XDG_CACHE_HOME");
        if (xdg != null && xdg.startsWith("/")) {
            return Path.of(xdg);
        }
        String home = System.getProperty("user.home");
        if (home == null || !home.startsWith("/") || !Files.isDirectory(Path.of(home))) {
            return null;
        }
        return Path.of(home, ".cache");
    }

    private static String cpu() {
        String arch = System.getProperty("os.arch", "");
        if (!System.getProperty("os.name", "").toLowerCase(Locale.ROOT).contains("linux")) {
            return null;
        }
        switch (arch) {
            case "amd64":
            case "x86_64":
                return "x86_64";
            case "aarch64":
                return "aarch64";
            default:
                return null;
        }
    }
}
