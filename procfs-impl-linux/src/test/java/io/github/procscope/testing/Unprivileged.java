package io.github.procscope.testing;

import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

/**
 * Runs a JVM as the unprivileged user {@code nobody}, through {@code setpriv --reuid=nobody --regid=nogroup
 * --clear-groups}, to see what a process without root's rights sees. The test class path (often under a
 * home directory {@code nobody} may not enter) is copied once per JVM into a world-readable temporary
 * directory.
 */
public final class Unprivileged {
    private static String classpath;

    private Unprivileged() {
    }

    /** @return whether this JVM runs as root and {@code setpriv} exists, so that it can drop to {@code nobody} */
    public static boolean available() {
        return "root".equals(System.getProperty("user.name")) && Commands.available("setpriv");
    }

    /**
     * @param mainClass the class to run
     * @param args      its arguments
     * @return a builder for a JVM running {@code mainClass} as {@code nobody}, with a copy of this class path
     */
    public static ProcessBuilder java(Class<?> mainClass, String... args) {
        // From default dispositions, whatever this JVM inherited (a build under nohup, or a background job).
        List<String> cmd = new ArrayList<>(List.of("env", "--default-signal", "setpriv", "--reuid=nobody",
                "--regid=nogroup", "--clear-groups"));
        cmd.add(ProcessHandle.current().info().command().orElse(System.getProperty("java.home") + "/bin/java"));
        cmd.add("-cp");
        cmd.add(worldReadableClasspath());
        cmd.add("-Xshare:auto");
        cmd.add("-XX:TieredStopAtLevel=1");
        cmd.add("-Djava.io.tmpdir=/tmp");
        cmd.addAll(Spawned.NATIVE_OPTIONS);
        cmd.add(mainClass.getName());
        cmd.addAll(List.of(args));
        return new ProcessBuilder(cmd).directory(new File("/"));
    }

    private static synchronized String worldReadableClasspath() {
        if (classpath != null) {
            return classpath;
        }
        try {
            Path dir = Files.createTempDirectory("procscope-cp");
            Runtime.getRuntime().addShutdownHook(new Thread(() -> ScriptedProcess.deleteTree(dir)));
            Files.setPosixFilePermissions(dir, PosixFilePermissions.fromString("rwxr-xr-x"));
            List<String> entries = new ArrayList<>();
            int i = 0;
            for (String e : System.getProperty("java.class.path").split(File.pathSeparator)) {
                Path src = Path.of(e);
                if (!Files.exists(src)) {
                    continue;
                }
                Path dst = dir.resolve(i++ + "-" + src.getFileName());
                copy(src, dst);
                entries.add(dst.toString());
            }
            classpath = String.join(File.pathSeparator, entries);
            return classpath;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static void copy(Path src, Path dst) throws IOException {
        if (Files.isDirectory(src)) {
            try (Stream<Path> s = Files.walk(src)) {
                for (Path p : (Iterable<Path>) s::iterator) {
                    Path t = dst.resolve(src.relativize(p).toString());
                    if (Files.isDirectory(p)) {
                        Files.createDirectories(t);
                        Files.setPosixFilePermissions(t, PosixFilePermissions.fromString("rwxr-xr-x"));
                    } else {
                        Files.copy(p, t, StandardCopyOption.REPLACE_EXISTING);
                        Files.setPosixFilePermissions(t, PosixFilePermissions.fromString("rw-r--r--"));
                    }
                }
            }
        } else {
            Files.copy(src, dst, StandardCopyOption.REPLACE_EXISTING);
            Files.setPosixFilePermissions(dst, PosixFilePermissions.fromString("rw-r--r--"));
        }
    }
}
