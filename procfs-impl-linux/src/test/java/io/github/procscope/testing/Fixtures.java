package io.github.procscope.testing;

import io.github.procscope.linux.proc.LinuxProcfs;
import io.github.procscope.linux.sys.KernelConstants;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URISyntaxException;
import java.net.URL;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Fixture files and the hand-written trees under {@code src/test/resources/fixtures}, laid out by kernel
 * file and variant: {@code files/KERNEL_FILE/VARIANT} holds one file as the kernel prints it
 * ({@code files/meminfo/3.10-no-memavailable}, {@code files/diskstats/20}), {@code kmsg/VARIANT.txt} one
 * kernel log, and each other directory a whole {@code /proc} (and {@code /sys}) tree of one machine
 * ({@code proc}, {@code proc-clean}, {@code cgroup-v2-container}, ...).
 */
public final class Fixtures {
    /** Clock ticks per second the fixture trees are written in. */
    public static final long TICKS = 100;
    /** Page size the fixture trees are written in. */
    public static final long PAGE = 4096;

    public static final KernelConstants CONSTANTS = new KernelConstants(TICKS, PAGE);

    private Fixtures() {
    }

    /** @return the path of a fixture file or directory {@code fixtures/RELATIVE} */
    public static Path path(String relative) {
        URL url = Fixtures.class.getResource("/fixtures/" + relative);
        if (url == null) {
            throw new AssertionError("no fixture " + relative);
        }
        try {
            return Path.of(url.toURI());
        } catch (URISyntaxException e) {
            throw new AssertionError(e);
        }
    }

    /** @return the fixture directory {@code fixtures/NAME} */
    public static Path dir(String name) {
        return path(name);
    }

    /** @return the hostile fake /proc tree */
    public static Path proc() {
        return path("proc");
    }

    /** @return a table over the hostile fake /proc tree, with the tree's constants */
    public static LinuxProcfs procfs() {
        return LinuxProcfs.builder(proc()).clockTicksPerSecond(TICKS).pageSizeBytes(PAGE).build();
    }

    /** @return a fixture file's bytes */
    public static byte[] bytes(String relative) {
        try {
            return Files.readAllBytes(path(relative));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** @return the bytes of a string written in a test */
    public static byte[] ascii(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }
}
