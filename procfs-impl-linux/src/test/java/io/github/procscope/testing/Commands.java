package io.github.procscope.testing;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.TimeUnit;

/** Runs a short command (ps, pmap, lsof, df) to completion and returns its stdout. */
public final class Commands {
    private Commands() {
    }

    /** @return the command's stdout; fails if it does not exit 0 within 30 seconds */
    public static String run(String... command) {
        try {
            Process p = new ProcessBuilder(command).redirectError(ProcessBuilder.Redirect.DISCARD).start();
            byte[] out = p.getInputStream().readAllBytes();
            if (!p.waitFor(30, TimeUnit.SECONDS)) {
                p.destroyForcibly();
                throw new AssertionError("timed out: " + List.of(command));
            }
            if (p.exitValue() != 0) {
                throw new AssertionError("exit " + p.exitValue() + ": " + List.of(command));
            }
            return new String(out, StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot run " + List.of(command), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError(e);
        }
    }

    /** @return whether the program can be found on the PATH */
    public static boolean available(String program) {
        for (String dir : System.getenv().getOrDefault("PATH", "/usr/bin:/bin").split(":")) {
            if (java.nio.file.Files.isExecutable(java.nio.file.Path.of(dir, program))) {
                return true;
            }
        }
        return false;
    }
}
