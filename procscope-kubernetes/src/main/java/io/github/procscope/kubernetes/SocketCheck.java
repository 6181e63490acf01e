package io.github.procscope.kubernetes;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.AccessDeniedException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.Map;

/**
 * Whether a path may be connected to as a unix socket: it is a socket ({@code S_IFSOCK} in {@code st_mode}), its
 * path fits {@code sockaddr_un}, and it is owned by root or by this process's user. A socket an unprivileged
 * user owns is refused when this process runs as root: whoever could place it there could answer with names of
 * their choosing. Symbolic links are followed ({@code /var/run} is one on most systems); the target is checked.
 */
final class SocketCheck {
    /** {@code sizeof(sun_path)} less its terminating NUL. */
    static final int MAX_PATH_BYTES = 107;

    private static final int S_IFMT = 0170000;
    private static final int S_IFSOCK = 0140000;
    private static final int S_IFLNK = 0120000;
    private static final int S_IFREG = 0100000;
    private static final int S_IFBLK = 0060000;
    private static final int S_IFDIR = 0040000;
    private static final int S_IFCHR = 0020000;
    private static final int S_IFIFO = 0010000;

    private SocketCheck() {
    }

    /** What a path is good for. */
    sealed interface Verdict permits Usable, Absent, Refused {
    }

    /** A socket to connect to. */
    record Usable(Path socket) implements Verdict {
    }

    /** Nothing there. */
    record Absent(Path socket) implements Verdict {
    }

    /** Something there that is not used, and why. */
    record Refused(Path socket, String reason) implements Verdict {
    }

    /**
     * @param socket the path
     * @param ownUid this process's effective user id
     * @return whether it may be used
     */
    static Verdict check(Path socket, int ownUid) {
        int bytes = socket.toString().getBytes(StandardCharsets.UTF_8).length;
        if (bytes > MAX_PATH_BYTES) {
            return new Refused(socket, "its path is " + bytes + " bytes long; a unix socket's path holds at most "
                    + MAX_PATH_BYTES);
        }
        Map<String, Object> attributes;
        try {
            attributes = Files.readAttributes(socket, "unix:mode,uid");
        } catch (NoSuchFileException e) {
            return new Absent(socket);
        } catch (AccessDeniedException e) {
            return new Refused(socket, "it cannot be examined: permission denied");
        } catch (IOException | UnsupportedOperationException e) {
            return new Refused(socket, "it cannot be examined: " + e);
        }
        int mode = (Integer) attributes.get("mode");
        int uid = (Integer) attributes.get("uid");
        if ((mode & S_IFMT) != S_IFSOCK) {
            return new Refused(socket, "it is not a socket but " + kind(mode));
        }
        if (uid != 0 && uid != ownUid) {
            return new Refused(socket, "it is owned by uid " + uid + ", not by root"
                    + (ownUid == 0 ? "" : " or by this process's uid " + ownUid)
                    + ": a socket that user could have placed there is not trusted");
        }
        return new Usable(socket);
    }

    /**
     * @param procSelf {@code /proc/self}
     * @return the effective user id of this process: the owner of {@code /proc/self}; root (the strictest
     *         choice) when that cannot be read, or when the kernel shows a process that is not dumpable as root's
     */
    static int ownUid(Path procSelf) {
        try {
            return (Integer) Files.getAttribute(procSelf, "unix:uid");
        } catch (IOException | UnsupportedOperationException | IllegalArgumentException e) {
            return 0;
        }
    }

    private static String kind(int mode) {
        switch (mode & S_IFMT) {
            case S_IFREG:
                return "a regular file";
            case S_IFDIR:
                return "a directory";
            case S_IFIFO:
                return "a FIFO";
            case S_IFCHR:
                return "a character device";
            case S_IFBLK:
                return "a block device";
            case S_IFLNK:
                return "a symbolic link";
            default:
                return "a file of type " + Integer.toOctalString(mode & S_IFMT);
        }
    }
}
