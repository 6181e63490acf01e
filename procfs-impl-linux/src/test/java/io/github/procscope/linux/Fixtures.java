package io.github.procscope.linux;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;

/** Access to the hand-written fixture trees under {@code src/test/resources/fixtures}. */
final class Fixtures {
    /** Clock ticks per second the fixture trees are written in. */
    static final long TICKS = 100;
    /** Page size the fixture trees are written in. */
    static final long PAGE = 4096;

    private Fixtures() {
    }

    /** @return the fixture directory {@code fixtures/NAME} */
    static Path dir(String name) {
        try {
            return Path.of(Fixtures.class.getResource("/fixtures/" + name).toURI());
        } catch (URISyntaxException e) {
            throw new IllegalStateException(e);
        }
    }

    /** @return the hostile fake /proc tree */
    static Path proc() {
        return dir("proc");
    }

    /** @return a table over the hostile fake /proc tree, with the tree's constants */
    static LinuxProcfs procfs() {
        return LinuxProcfs.builder(proc()).clockTicksPerSecond(TICKS).pageSizeBytes(PAGE).build();
    }

    /** @return the bytes of a fixture file */
    static byte[] bytes(String relative) {
        try {
            return Files.readAllBytes(dir(relative));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    static final KernelConstants CONSTANTS = new KernelConstants(TICKS, PAGE);
}
