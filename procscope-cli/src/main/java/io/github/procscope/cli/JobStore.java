package io.github.procscope.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Pattern;

/**
 * The per-user record of detached jobs: one JSON file per job, {@code ID.json}, in a directory of mode 0700.
 * Every write goes to a temporary file first and is renamed over the record, so a reader sees the old record or
 * the new one, never half of one; a new record is linked into place, so that it never replaces another.
 *
 * <p>The directory: {@code --state-dir}, else {@code $PROCSCOPE_STATE_DIR}, else
 * {@code $XDG_STATE_HOME/procscope/jobs}, else {@code ~/.local/state/procscope/jobs}.
 */
final class JobStore {
    /** The environment variable that names the directory. */
    static final String ENV = "PROCSCOPE_STATE_DIR";
    /** What a job id looks like: what {@link #newId} makes, and nothing that could name another path. */
    private static final Pattern ID = Pattern.compile("[0-9A-Za-z][0-9A-Za-z_-]{0,63}");
    private static final DateTimeFormatter STAMP = DateTimeFormatter.ofPattern("yyyyMMdd-HHmmss");
    /** A record larger than this is not one procscope wrote. */
    private static final long MAX_RECORD_BYTES = 16L << 20;

    private final Path dir;

    private JobStore(Path dir) {
        this.dir = dir;
    }

    /** @return the directory the option, the environment or the defaults name, not created yet */
    static Path locate(Path option, Map<String, String> env) {
        if (option != null) {
            return option.toAbsolutePath();
        }
        String own = env.get(ENV);
        if (own != null && !own.isEmpty()) {
            return Path.of(own).toAbsolutePath();
        }
        String xdg = env.get("XDG_STATE_HOME");
        if (xdg != null && xdg.startsWith("/")) {
            return Path.of(xdg, "procscope", "jobs");
        }
        return Path.of(System.getProperty("user.home"), ".local", "state", "procscope", "jobs");
    }

    /**
     * @param option {@code --state-dir}, or null
     * @param create whether to make the directory (mode 0700) when it does not exist
     * @return the store
     * @throws IllegalArgumentException if the path is not a directory
     */
    static JobStore open(Path option, boolean create) {
        Path dir = locate(option, System.getenv());
        if (Files.exists(dir, LinkOption.NOFOLLOW_LINKS) && !Files.isDirectory(dir)) {
            throw new IllegalArgumentException("the job state directory " + dir + " is not a directory");
        }
        if (create && !Files.isDirectory(dir)) {
            try {
                Files.createDirectories(dir);
                Files.setPosixFilePermissions(dir, PosixFilePermissions.fromString("rwx------"));
            } catch (IOException | UnsupportedOperationException e) {
                throw new IllegalArgumentException("cannot make the job state directory " + dir + ": " + e.getMessage(), e);
            }
        }
        return new JobStore(dir);
    }

    Path dir() {
        return dir;
    }

    /** @return a fresh id made of the local time: {@code 20261203-143012}, with {@code -2}, {@code -3}... after it */
    static String stamp(ZonedDateTime now, int attempt) {
        return STAMP.format(now) + (attempt > 1 ? "-" + attempt : "");
    }

    /** @return whether the text could be a job id (no path separator, no dot first, not too long) */
    static boolean validId(String id) {
        return ID.matcher(id).matches();
    }

    /**
     * Writes a new record, never replacing one.
     *
     * @return false if a record with that id exists
     */
    boolean create(String id, ObjectNode record) {
        Path target = file(id);
        try {
            Path tmp = temp(record);
            try {
                Files.createLink(target, tmp);
                return true;
            } catch (FileAlreadyExistsException e) {
                return false;
            } finally {
                Files.deleteIfExists(tmp);
            }
        } catch (IOException e) {
            throw new IllegalArgumentException("cannot write a job record in " + dir + ": " + e.getMessage(), e);
        }
    }

    /** Replaces a record at once. */
    void write(String id, ObjectNode record) {
        try {
            Path tmp = temp(record);
            try {
                Files.move(tmp, file(id), StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
            } finally {
                Files.deleteIfExists(tmp);
            }
        } catch (IOException e) {
            throw new IllegalArgumentException("cannot write the job record " + file(id) + ": " + e.getMessage(), e);
        }
    }

    private Path temp(ObjectNode record) throws IOException {
        Path tmp = Files.createTempFile(dir, ".job-", ".tmp");
        Files.writeString(tmp, Context.mapper().writeValueAsString(record) + "\n", StandardCharsets.UTF_8);
        return tmp;
    }

    /** @return the record of a job, if the id is valid and a readable record exists */
    Optional<ObjectNode> read(String id) {
        if (!validId(id)) {
            return Optional.empty();
        }
        return readFile(file(id));
    }

    private static Optional<ObjectNode> readFile(Path f) {
        try {
            if (!Files.isRegularFile(f, LinkOption.NOFOLLOW_LINKS) || Files.size(f) > MAX_RECORD_BYTES) {
                return Optional.empty();
            }
            JsonNode n = Context.mapper().readTree(Files.readString(f, StandardCharsets.UTF_8));
            return n instanceof ObjectNode o && o.path("id").isTextual() ? Optional.of(o) : Optional.empty();
        } catch (IOException | RuntimeException e) {
            return Optional.empty(); // not a record procscope wrote: left out
        }
    }

    /** @return every readable record, oldest first */
    List<ObjectNode> list() {
        List<ObjectNode> out = new ArrayList<>();
        if (!Files.isDirectory(dir)) {
            return out;
        }
        try (DirectoryStream<Path> s = Files.newDirectoryStream(dir, "*.json")) {
            for (Path f : s) {
                String name = f.getFileName().toString();
                if (validId(name.substring(0, name.length() - ".json".length()))) {
                    readFile(f).ifPresent(out::add);
                }
            }
        } catch (IOException e) {
            throw new IllegalArgumentException("cannot list the job state directory " + dir + ": " + e.getMessage(), e);
        }
        out.sort(Comparator.comparing((ObjectNode o) -> o.path("startTime").asText()).thenComparing(o -> o.path("id").asText()));
        return out;
    }

    private Path file(String id) {
        if (!validId(id)) {
            throw new IllegalArgumentException("not a job id: '" + Table.printable(id) + "'");
        }
        return dir.resolve(id + ".json");
    }
}
