package io.github.procscope.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.github.procscope.api.core.Pids;
import io.github.procscope.api.core.ProcessKey;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.SeekableByteChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.InvalidPathException;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.SecureDirectoryStream;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.BasicFileAttributeView;
import java.nio.file.attribute.BasicFileAttributes;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.regex.Pattern;

/**
 * The per-user record of detached jobs: one JSON file per job, {@code ID.json}, in a directory of mode 0700.
 * Every write goes to a temporary file first and is renamed over the record, so a reader sees the old record or
 * the new one, never half of one; a new record is linked into place, so that it never replaces another.
 *
 * <p>The directory: {@code --state-dir}, else {@code $PROCSCOPE_STATE_DIR}, else
 * {@code $XDG_STATE_HOME/procscope/jobs}, else {@code ~/.local/state/procscope/jobs}.
 *
 * <p><b>What is trusted.</b> A record names a log that {@code logs} prints, and processes that {@code jobs}
 * looks at; a record someone else could write would make a privileged {@code logs} print any file. So a
 * record is used only when all of these hold, and is otherwise refused with the reason, never followed:
 * <ul>
 *   <li>the directory belongs to the invoking user or to root, and no one else can replace what is in it: it
 *       is not writable by its group or others, unless it is sticky ({@code /tmp}'s mode 1777), where only a
 *       file's owner may rename or remove the file;</li>
 *   <li>the record is a regular file (not a symbolic link, FIFO or device: it is opened with
 *       {@code O_NOFOLLOW}, relative to the directory already checked, and its type is read before it is
 *       opened), belongs to the invoking user or to root, and is not writable by its group or others;</li>
 *   <li>its name is {@code ID.json} with an id as {@code run} makes them ({@code 20261203-143012}, then
 *       {@code -2}, {@code -3}... up to {@code -1000}), and the id inside is the same;</li>
 *   <li>its pids are pids (1 to 2^22) and its start times are numbers of ticks, 0 or more;</li>
 *   <li>its log is {@code DIR/ID.log} for an absolute, normalised {@code DIR}: no other name, nothing that
 *       climbs with {@code ..}.</li>
 * </ul>
 * A log is opened only when its directory passes the directory rule above and the log is a regular file (not a
 * link), owned by the record's owner, not writable by its group or others; it too is opened relative to its
 * checked directory, without following a link. A sticky directory writable by all is thus a usable shared state
 * directory: each user sees their own records (and root's), and records of other users are listed as refused.
 */
final class JobStore {
    /** The environment variable that names the directory. */
    static final String ENV = "PROCSCOPE_STATE_DIR";
    /** What a job id looks like: what {@link #stamp} makes, and nothing else. */
    private static final Pattern ID = Pattern.compile("[0-9]{8}-[0-9]{6}(-[1-9][0-9]{0,3})?");
    private static final DateTimeFormatter STAMP = DateTimeFormatter.ofPattern("yyyyMMdd-HHmmss");
    /** A record larger than this is not one procscope wrote. */
    private static final long MAX_RECORD_BYTES = 16L << 20;
    /** How many times a record replaced while it is read is read again before it is refused. */
    private static final int READ_ATTEMPTS = 8;
    /** {@link #loadOnce}'s answer for a record replaced while it was read (compared by identity). */
    private static final Optional<Loaded> REPLACED = Optional.of(Loaded.refused("", "replaced"));
    private static final Set<String> STATES = Set.of("starting", "running", "ended", "failed");
    private static final int GROUP_OR_OTHER_WRITE = 0022;
    private static final int STICKY = 01000;

    private final Path dir;
    private final int uid;

    private JobStore(Path dir, int uid) {
        this.dir = dir;
        this.uid = uid;
    }

    /**
     * A record that was read: the record and the uid that owns its file, or why it is not used.
     *
     * @param name    its file's name in the directory
     * @param record  the record, if usable
     * @param refusal why it is not used (one line naming the file), if not
     * @param owner   the uid that owns a usable record's file
     */
    record Loaded(String name, Optional<ObjectNode> record, String refusal, int owner) {
        static Loaded of(String name, ObjectNode r, int owner) {
            return new Loaded(name, Optional.of(r), null, owner);
        }

        static Loaded refused(String name, String why) {
            return new Loaded(name, Optional.empty(), why, -1);
        }

        boolean usable() {
            return record.isPresent();
        }
    }

    /** A job's log, open for reading. */
    record Log(Path path, SeekableByteChannel channel, Object fileKey) {
    }

    /** A record, a log or the directory is not to be trusted; the message says which and why, in one line. */
    static final class RefusedException extends IllegalStateException {
        private static final long serialVersionUID = 1L;

        RefusedException(String message) {
            super(message);
        }
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
     * @throws IllegalArgumentException if the path is not a directory, or cannot be made
     * @throws RefusedException         if the directory is not to be trusted (see the class comment)
     */
    @SuppressWarnings("try") // the resource is held for its scope, not used by name
    static JobStore open(Path option, boolean create) {
        Path dir = locate(option, System.getenv());
        if (Files.exists(dir, LinkOption.NOFOLLOW_LINKS) && !Files.isDirectory(dir)) {
            throw new IllegalArgumentException("the job state directory " + dir + " is not a directory");
        }
        if (create && !Files.isDirectory(dir)) {
            try {
                Files.createDirectories(dir);
                Files.setPosixFilePermissions(dir, PosixFilePermissions.fromString("rwx------"));
            } catch (IOException e) {
                throw new IllegalArgumentException("cannot make the job state directory " + dir + ": "
                        + IoErrors.reason(e), e);
            } catch (UnsupportedOperationException e) {
                throw new IllegalArgumentException("cannot make the job state directory " + dir + ": " + e.getMessage(), e);
            }
        }
        JobStore store = new JobStore(dir, invokingUid());
        if (Files.isDirectory(dir)) {
            try (SecureDirectoryStream<Path> d = store.openDirectory(dir, "the job state directory")) {
                // checked: usable
            } catch (IOException e) {
                throw new IllegalArgumentException("cannot read the job state directory " + dir + ": "
                        + IoErrors.reason(e), e);
            }
        }
        return store;
    }

    /** @return the effective uid of this process: the owner of {@code /proc/self} */
    static int invokingUid() {
        try {
            return (Integer) Files.getAttribute(Path.of("/proc/self"), "unix:uid");
        } catch (IOException | RuntimeException e) {
            throw new IllegalStateException("cannot tell who runs procscope (the owner of /proc/self): " + e, e);
        }
    }

    Path dir() {
        return dir;
    }

    /** @return a fresh id made of the local time: {@code 20261203-143012}, with {@code -2}, {@code -3}... after it */
    static String stamp(ZonedDateTime now, int attempt) {
        return STAMP.format(now) + (attempt > 1 ? "-" + attempt : "");
    }

    /** @return whether the text is a job id as {@code run} makes them (no path separator, no dot, nothing else) */
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
            throw new IllegalArgumentException("cannot write a job record in " + dir + ": " + IoErrors.reason(e), e);
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
            throw new IllegalArgumentException("cannot write the job record " + file(id) + ": " + IoErrors.reason(e), e);
        }
    }

    private Path temp(ObjectNode record) throws IOException {
        Path tmp = Files.createTempFile(dir, ".job-", ".tmp");
        Files.writeString(tmp, Context.mapper().writeValueAsString(record) + "\n", StandardCharsets.UTF_8);
        return tmp;
    }

    /**
     * @return the record of a job, or why it is refused; empty if the id is not a job id or there is no record
     */
    Optional<Loaded> read(String id) {
        if (!validId(id) || !Files.isDirectory(dir)) {
            return Optional.empty();
        }
        try (SecureDirectoryStream<Path> d = openDirectory(dir, "the job state directory")) {
            return load(d, id + ".json");
        } catch (IOException e) {
            throw new IllegalArgumentException("cannot read the job state directory " + dir + ": " + IoErrors.reason(e), e);
        }
    }

    /** @return the record of a job, if it is there and usable */
    Optional<ObjectNode> usable(String id) {
        return read(id).flatMap(Loaded::record);
    }

    /** @return every record, usable or refused, oldest first (refused ones by name, after them) */
    List<Loaded> list() {
        List<Loaded> out = new ArrayList<>();
        if (!Files.isDirectory(dir)) {
            return out;
        }
        try (SecureDirectoryStream<Path> d = openDirectory(dir, "the job state directory")) {
            List<String> names = new ArrayList<>();
            for (Path f : d) {
                String name = f.getFileName().toString();
                if (name.endsWith(".json") && !name.startsWith(".")) {
                    names.add(name);
                }
            }
            for (String name : names) {
                load(d, name).ifPresent(out::add);
            }
        } catch (IOException e) {
            throw new IllegalArgumentException("cannot list the job state directory " + dir + ": " + IoErrors.reason(e), e);
        }
        out.sort(Comparator.comparing((Loaded l) -> !l.usable())
                .thenComparing(l -> l.record().map(o -> o.path("startTime").asText()).orElse(""))
                .thenComparing(Loaded::name));
        return out;
    }

    /**
     * The running jobs, for {@code serve}'s job families: each usable record that says {@code running}, with its
     * job's first process (pid and start time). Records refused are left out.
     *
     * @return the jobs by id
     * @throws IllegalArgumentException if the directory cannot be listed
     */
    Map<String, ProcessKey> running() {
        Map<String, ProcessKey> jobs = new TreeMap<>();
        for (Loaded l : list()) {
            if (l.record().isEmpty()) {
                continue;
            }
            ObjectNode r = l.record().get();
            JsonNode job = r.path("job");
            if (r.path("state").asText().equals("running") && job.path("pid").isIntegralNumber()
                    && job.path("startTimeTicks").isIntegralNumber() && job.path("pid").asLong() > 0) {
                jobs.put(r.path("id").asText(), new ProcessKey(job.path("pid").asLong(),
                        job.path("startTimeTicks").asLong()));
            }
        }
        return jobs;
    }

    /**
     * Opens a directory, then checks the directory it opened: its owner and mode, read on the open descriptor's
     * file (the path's attributes are compared with it), so that a directory swapped in afterwards is never used.
     */
    private SecureDirectoryStream<Path> openDirectory(Path d, String what) throws IOException {
        DirectoryStream<Path> s = Files.newDirectoryStream(d);
        if (!(s instanceof SecureDirectoryStream<Path> sds)) {
            s.close();
            throw new RefusedException(what + " " + d + " is refused: this platform cannot open files relative to"
                    + " a directory, so the directory could be swapped while it is read");
        }
        try {
            Object opened = sds.getFileAttributeView(BasicFileAttributeView.class).readAttributes().fileKey();
            Map<String, Object> a = Files.readAttributes(d, "unix:uid,mode,fileKey");
            if (opened == null || !opened.equals(a.get("fileKey"))) {
                throw new RefusedException(what + " " + d + " is refused: it was replaced while it was opened");
            }
            String why = distrust((Integer) a.get("uid"), (Integer) a.get("mode"), true);
            if (why != null) {
                throw new RefusedException(what + " " + d + " is refused: " + why);
            }
            return sds;
        } catch (IOException | RuntimeException e) {
            sds.close();
            throw e;
        }
    }

    /**
     * @param d a directory for logs
     * @throws RefusedException if {@code logs} would refuse a log in it (see the class comment)
     */
    @SuppressWarnings("try") // the resource is held for its scope, not used by name
    void checkLogDirectory(Path d) throws IOException {
        try (SecureDirectoryStream<Path> s = openDirectory(d, "the log directory")) {
            // checked: usable
        }
    }

    /**
     * @param owner the owner's uid
     * @param mode  the mode bits
     * @param dir   whether it is a directory (where the sticky bit makes group or other write safe)
     * @return why a file with this owner and mode is not to be trusted by the invoking user, or null
     */
    private String distrust(int owner, int mode, boolean dir) {
        if (owner != uid && owner != 0) {
            return "it belongs to uid " + owner + ", neither to you (uid " + uid + ") nor to root";
        }
        if ((mode & GROUP_OR_OTHER_WRITE) != 0 && !(dir && (mode & STICKY) != 0)) {
            String who = (mode & 0002) != 0 ? "everyone" : "its group";
            return "it is writable by " + who + " (mode " + String.format("%04o", mode & 07777) + ")"
                    + (dir ? " and not sticky, so anyone who may write there could replace what it holds"
                    + " (chmod go-w it, or use another directory)" : "");
        }
        return null;
    }

    /**
     * Reads a record; one replaced between the looks at it (its supervisor writes each new state aside and renames
     * it over the record, {@link #write}) is read again, as the writer left it, up to {@link #READ_ATTEMPTS} times.
     */
    private Optional<Loaded> load(SecureDirectoryStream<Path> d, String name) {
        for (int attempt = 1; attempt <= READ_ATTEMPTS; attempt++) {
            Optional<Loaded> loaded = loadOnce(d, name);
            if (loaded != REPLACED) {
                return loaded;
            }
        }
        return Optional.of(Loaded.refused(name, "record " + Table.printable(dir.resolve(name).toString())
                + " is refused: it was replaced while it was read, " + READ_ATTEMPTS + " times in a row"));
    }

    /**
     * Reads one entry of the checked directory, or says why it is refused; empty if it is not there.
     *
     * @return the record, or {@link #REPLACED} if it was replaced between the looks at it
     */
    private Optional<Loaded> loadOnce(SecureDirectoryStream<Path> d, String name) {
        String shown = Table.printable(dir.resolve(name).toString());
        String id = name.substring(0, name.length() - ".json".length());
        if (!validId(id)) {
            return Optional.of(Loaded.refused(name, "record " + shown + " is refused: '" + Table.printable(id)
                    + "' is not a job id as 'procscope run' makes them"));
        }
        Path rel = Path.of(name);
        try {
            BasicFileAttributes a = d.getFileAttributeView(rel, BasicFileAttributeView.class, LinkOption.NOFOLLOW_LINKS)
                    .readAttributes();
            String type = type(a);
            if (type != null) {
                return Optional.of(Loaded.refused(name, "record " + shown + " is refused: it is " + type
                        + ", not a file"));
            }
            Map<String, Object> u = Files.readAttributes(dir.resolve(name), "unix:uid,mode,fileKey",
                    LinkOption.NOFOLLOW_LINKS);
            if (!a.fileKey().equals(u.get("fileKey"))) {
                return REPLACED;
            }
            String why = distrust((Integer) u.get("uid"), (Integer) u.get("mode"), false);
            if (why != null) {
                return Optional.of(Loaded.refused(name, "record " + shown + " is refused: " + why));
            }
            if (a.size() > MAX_RECORD_BYTES) {
                return Optional.of(Loaded.refused(name, "record " + shown + " is refused: " + a.size()
                        + " bytes is more than a record procscope writes"));
            }
            byte[] bytes;
            try (SeekableByteChannel ch = d.newByteChannel(rel, Set.of(StandardOpenOption.READ,
                    LinkOption.NOFOLLOW_LINKS))) {
                bytes = readAtMost(ch, MAX_RECORD_BYTES);
            }
            if (bytes == null) {
                return Optional.of(Loaded.refused(name, "record " + shown + " is refused: it grew past "
                        + MAX_RECORD_BYTES + " bytes while it was read"));
            }
            JsonNode n;
            try {
                n = Context.mapper().readTree(new String(bytes, StandardCharsets.UTF_8));
            } catch (IOException | RuntimeException e) {
                return Optional.of(Loaded.refused(name, "record " + shown + " is refused: it is not JSON"));
            }
            if (!(n instanceof ObjectNode o)) {
                return Optional.of(Loaded.refused(name, "record " + shown + " is refused: it is not a JSON object"));
            }
            String bad = invalid(id, o);
            if (bad != null) {
                return Optional.of(Loaded.refused(name, "record " + shown + " is refused: " + bad));
            }
            return Optional.of(Loaded.of(name, o, (Integer) u.get("uid")));
        } catch (NoSuchFileException e) {
            return Optional.empty(); // removed meanwhile, or never there
        } catch (IOException e) {
            return Optional.of(Loaded.refused(name, "record " + shown + " is refused: it cannot be read: "
                    + IoErrors.reason(e)));
        }
    }

    /** @return the kind of a file that is not a regular file ("a symbolic link", "a FIFO"...), or null */
    private static String type(BasicFileAttributes a) {
        if (a.isRegularFile()) {
            return null;
        }
        if (a.isSymbolicLink()) {
            return "a symbolic link";
        }
        if (a.isDirectory()) {
            return "a directory";
        }
        return "a FIFO, socket or device";
    }

    /** @return the whole content, or null if there is more than {@code max} bytes */
    private static byte[] readAtMost(SeekableByteChannel ch, long max) throws IOException {
        java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream();
        ByteBuffer buf = ByteBuffer.allocate(64 * 1024);
        while (ch.read(buf.clear()) >= 0) {
            out.write(buf.array(), 0, buf.position());
            if (out.size() > max) {
                return null;
            }
        }
        return out.toByteArray();
    }

    /** @return what is wrong with a record's content, or null */
    private static String invalid(String id, ObjectNode o) {
        JsonNode idNode = o.path("id");
        if (!idNode.isTextual() || !idNode.asText().equals(id)) {
            return "its id " + (idNode.isTextual() ? "'" + Table.printable(idNode.asText()) + "'" : idNode.toString())
                    + " is not its name's, " + id;
        }
        if (!STATES.contains(o.path("state").asText())) {
            return "its state " + Table.printable(o.path("state").toString()) + " is none of " + STATES;
        }
        for (String key : List.of("supervisor", "job")) {
            JsonNode p = o.path(key);
            if (p.isMissingNode() || p.isNull()) {
                continue;
            }
            JsonNode pid = p.path("pid");
            JsonNode ticks = p.path("startTimeTicks");
            if (!pid.isIntegralNumber() || !pid.canConvertToLong() || pid.asLong() < 1 || pid.asLong() > Pids.PID_MAX_LIMIT) {
                return "its " + key + " pid " + Table.printable(pid.toString()) + " is not a pid (1 to "
                        + Pids.PID_MAX_LIMIT + ")";
            }
            if (!ticks.isIntegralNumber() || !ticks.canConvertToLong() || ticks.asLong() < 0) {
                return "its " + key + " start time " + Table.printable(ticks.toString()) + " is not a number of ticks";
            }
        }
        JsonNode command = o.path("command");
        if (!command.isMissingNode()) {
            if (!command.isArray()) {
                return "its command is not a list of words";
            }
            for (JsonNode w : command) {
                if (!w.isTextual()) {
                    return "its command is not a list of words";
                }
            }
        }
        JsonNode log = o.path("log");
        if (!log.isTextual()) {
            return "it names no log";
        }
        return invalidLog(id, log.asText());
    }

    /** @return what is wrong with a log path for job {@code id}, or null */
    private static String invalidLog(String id, String log) {
        Path p;
        try {
            p = Path.of(log);
        } catch (InvalidPathException e) {
            return "its log '" + Table.printable(log) + "' is not a path";
        }
        if (!p.isAbsolute() || !p.normalize().equals(p) || !log.equals(p.toString()) || p.getParent() == null
                || !p.getFileName().toString().equals(id + ".log")) {
            return "its log '" + Table.printable(log) + "' is not DIR/" + id + ".log for an absolute directory";
        }
        return null;
    }

    /**
     * Opens a usable record's log for reading (see the class comment for the rules).
     *
     * @throws RefusedException    if the log or its directory is not to be trusted
     * @throws NoSuchFileException if it is gone
     */
    Log openLog(Loaded loaded) throws IOException {
        ObjectNode record = loaded.record().orElseThrow(() -> new RefusedException(loaded.refusal()));
        String id = record.path("id").asText();
        String text = record.path("log").asText();
        String bad = invalidLog(id, text);
        if (bad != null) {
            throw new RefusedException("the log of job " + id + " is refused: " + bad);
        }
        Path log = Path.of(text);
        Path parent = log.getParent();
        Path name = log.getFileName();
        int recordOwner = loaded.owner();
        try (SecureDirectoryStream<Path> d = openDirectory(parent, "the log directory of job " + id + ",")) {
            BasicFileAttributes a = d.getFileAttributeView(name, BasicFileAttributeView.class, LinkOption.NOFOLLOW_LINKS)
                    .readAttributes();
            String type = type(a);
            if (type != null) {
                throw new RefusedException("the log of job " + id + ", " + Table.printable(text) + ", is refused: it is "
                        + type + ", not a regular file");
            }
            Map<String, Object> u = Files.readAttributes(log, "unix:uid,mode,fileKey", LinkOption.NOFOLLOW_LINKS);
            if (!a.fileKey().equals(u.get("fileKey"))) {
                throw new RefusedException("the log of job " + id + ", " + Table.printable(text) + ", is refused: it was"
                        + " replaced while it was opened");
            }
            int owner = (Integer) u.get("uid");
            if (owner != recordOwner) {
                throw new RefusedException("the log of job " + id + ", " + Table.printable(text) + ", is refused: it"
                        + " belongs to uid " + owner + ", not to the owner of the job's record (uid " + recordOwner + ")");
            }
            String why = distrust(owner, (Integer) u.get("mode"), false);
            if (why != null) {
                throw new RefusedException("the log of job " + id + ", " + Table.printable(text) + ", is refused: " + why);
            }
            SeekableByteChannel ch = d.newByteChannel(name, Set.of(StandardOpenOption.READ, LinkOption.NOFOLLOW_LINKS));
            return new Log(log, ch, a.fileKey());
        }
    }

    /** @return the identity (device and inode) of a log's file now, without following a link; null if it is gone */
    static Object fileKey(Path log) {
        try {
            return Files.readAttributes(log, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS).fileKey();
        } catch (IOException e) {
            return null;
        }
    }

    private Path file(String id) {
        if (!validId(id)) {
            throw new IllegalArgumentException("not a job id: '" + Table.printable(id) + "'");
        }
        return dir.resolve(id + ".json");
    }
}
