package io.github.procscope.linux.proc;

import io.github.procscope.linux.sys.ByteCursor;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

/**
 * User names by user id, resolved without spawning processes and cached for the life of the
 * {@link LinuxProcfs}. A name is resolved once per user id, through the JDK's owner lookup on a file
 * owned by that id (the {@code /proc/PID} directory just read), which asks the system's name service
 * ({@code getpwuid_r}: {@code /etc/passwd}, LDAP, ...). Ids without a name stay unnamed.
 * Thread-safe.
 */
final class UserNames {
    private final ConcurrentHashMap<Long, Optional<String>> byUid = new ConcurrentHashMap<>();

    /**
     * @param uid       a user id
     * @param owned a file owned by that id, used (and named) only to resolve the name the first time
     * @return the name, or empty if the id has none (or the file vanished before the first lookup)
     */
    Optional<String> name(long uid, ByteCursor.Source owned) {
        Optional<String> known = byUid.get(uid);
        if (known != null) {
            return known;
        }
        Path ownedPath = owned.path();
        try {
            String name = Files.getOwner(ownedPath, LinkOption.NOFOLLOW_LINKS).getName();
            Object owner = Files.getAttribute(ownedPath, "unix:uid", LinkOption.NOFOLLOW_LINKS);
            if (!(owner instanceof Integer) || Integer.toUnsignedLong((Integer) owner) != uid) {
                return Optional.empty(); // the path changed owner meanwhile (a recycled pid): try again later
            }
            // The JDK gives the number itself as the name when the id has no entry.
            Optional<String> resolved = name.equals(Long.toString(uid)) ? Optional.empty() : Optional.of(name);
            Optional<String> prior = byUid.putIfAbsent(uid, resolved);
            return prior != null ? prior : resolved;
        } catch (IOException | UnsupportedOperationException e) {
            return Optional.empty();
        }
    }
}
