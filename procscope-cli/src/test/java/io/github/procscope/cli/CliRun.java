package io.github.procscope.cli;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;

/** One in-process run of the tool: its exit status, stdout and stderr. */
record CliRun(int status, String out, String err) {

    static CliRun of(String... args) {
        ByteArrayOutputStream o = new ByteArrayOutputStream();
        ByteArrayOutputStream e = new ByteArrayOutputStream();
        int status = ProcscopeCli.run(new PrintStream(o, true, StandardCharsets.UTF_8),
                new PrintStream(e, true, StandardCharsets.UTF_8), args);
        return new CliRun(status, o.toString(StandardCharsets.UTF_8),
                withoutInheritedNotices(e.toString(StandardCharsets.UTF_8)));
    }

    /**
     * The signals this test JVM inherited as ignored (SigIgn of /proc/self/status when this class was loaded): a
     * build under nohup ignores HUP, one started as a background job INT and QUIT.
     */
    private static final java.util.Set<String> INHERITED_IGNORED = inheritedIgnored();

    private static java.util.Set<String> inheritedIgnored() {
        java.util.Set<String> out = new java.util.HashSet<>();
        try {
            for (String l : java.nio.file.Files.readAllLines(Path.of("/proc/self/status"))) {
                if (l.startsWith("SigIgn:")) {
                    long mask = Long.parseUnsignedLong(l.substring(7).strip(), 16);
                    for (io.github.procscope.api.signals.Signal s : io.github.procscope.api.signals.Signal.all()) {
                        if (s.number() <= 64 && (mask & (1L << (s.number() - 1))) != 0) {
                            out.add(s.fullName());
                        }
                    }
                }
            }
        } catch (java.io.IOException | RuntimeException e) {
            // no /proc here: nothing inherited is known
        }
        return out;
    }

    /**
     * @return the error output without the notices the tool gives because this test JVM inherited a signal as ignored
     *         ({@code run}'s "is not passed on", the guard's "already ignored when this JVM started"): they say how
     *         the build was started, not what the command did, and appear only under nohup or as a background job
     */
    static String withoutInheritedNotices(String err) {
        if (INHERITED_IGNORED.isEmpty()) {
            return err;
        }
        StringBuilder b = new StringBuilder();
        for (String line : err.split("(?<=\n)")) {
            boolean notice = false;
            for (String s : INHERITED_IGNORED) {
                notice |= line.contains(s + " is not passed on to the job: it was ignored when procscope started")
                        || line.contains(s + " was already ignored when this JVM started");
            }
            if (!notice) {
                b.append(line);
            }
        }
        return b.toString();
    }

    private static Path proc;

    /** @return the hostile fixture /proc tree of procfs-impl-linux's tests, as a directory */
    static synchronized Path fixtureProc() {
        if (proc == null) {
            try {
                Path scratch = java.nio.file.Files.createTempDirectory("procscope-fixtures-");
                Runtime.getRuntime().addShutdownHook(new Thread(() -> deleteTree(scratch)));
                proc = io.github.procscope.testing.FixtureTrees.directory("proc", scratch);
            } catch (java.io.IOException e) {
                throw new java.io.UncheckedIOException(e);
            }
        }
        return proc;
    }

    private static void deleteTree(Path dir) {
        try (var s = java.nio.file.Files.walk(dir)) {
            s.sorted(java.util.Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        } catch (java.io.IOException e) {
            // best effort at exit
        }
    }
}
