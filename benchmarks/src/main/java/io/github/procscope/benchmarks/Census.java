package io.github.procscope.benchmarks;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/**
 * Facts a benchmark's setup records next to the JMH results, one tab-separated line per trial, in the file
 * named by the system property {@value #PROPERTY} (nothing is written without it): the benchmark, the
 * fleet size, how many processes a snapshot held, and the bytes of the records a snapshot returned.
 */
final class Census {
    /** The system property naming the census file. */
    static final String PROPERTY = "procscope.bench.census";

    private Census() {
    }

    /**
     * @param benchmark     the benchmark's full name
     * @param fleetSize     the fleet size parameter
     * @param processes     processes in a snapshot of the system with the fleet up
     * @param recordBytes   bytes of the records one procscope snapshot returned
     * @param sizeMethod    how the sizes were obtained
     */
    static void record(String benchmark, int fleetSize, int processes, long recordBytes, String sizeMethod) {
        String file = System.getProperty(PROPERTY, "").strip();
        if (file.isEmpty()) {
            return;
        }
        String line = benchmark + "\t" + fleetSize + "\t" + processes + "\t" + recordBytes + "\t" + sizeMethod + "\n";
        try {
            Files.writeString(Path.of(file), line, StandardCharsets.UTF_8, StandardOpenOption.CREATE,
                    StandardOpenOption.APPEND);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write the census " + file, e);
        }
    }
}
