package io.github.procscope.metrics;

import io.github.procscope.api.Procscope;
import io.github.procscope.api.process.ProcessTable;


import java.nio.file.Files;
import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The command-line tool's fixture machine ({@code procscope-cli/src/test/resources/machine}): a training run
 * (python3 4100 with DataLoader workers 4101, 4102, the zombie 4103), the ghost worker 4200 adopted by PID 1,
 * sshd 850 and bash 900 above the run.
 */
final class Fixture {
    static final long PAGE = 4096;

    private Fixture() {
    }

    static Path root() {
        Path p = Path.of("../procscope-cli/src/test/resources/machine").toAbsolutePath().normalize();
        assertTrue(Files.isDirectory(p.resolve("proc")), "the fixture machine is missing: " + p);
        return p;
    }

    static ProcessTable procfs() {
        return Procscope.at(root().resolve("proc"), root().resolve("sys")).processes();
    }
}
