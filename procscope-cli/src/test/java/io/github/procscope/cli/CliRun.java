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
        return new CliRun(status, o.toString(StandardCharsets.UTF_8), e.toString(StandardCharsets.UTF_8));
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
