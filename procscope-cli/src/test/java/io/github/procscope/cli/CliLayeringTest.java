package io.github.procscope.cli;

import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The command-line tool sees the platform through the API only: it builds every reader from Procscope.at. */
class CliLayeringTest {
    /** An import of, or a qualified name in, the Linux implementation's packages. */
    private static final Pattern LINUX = Pattern.compile("\\bio\\.github\\.procscope\\.linux\\b");

    @Test
    void noCliClassNamesTheLinuxImplementation() throws IOException {
        Path cli = Path.of("src/main/java/io/github/procscope/cli");
        assertTrue(Files.isDirectory(cli), "run from the module directory: " + cli.toAbsolutePath());
        List<String> offenders = new ArrayList<>();
        int files = 0;
        try (Stream<Path> s = Files.walk(cli)) {
            for (Path f : (Iterable<Path>) s.filter(p -> p.toString().endsWith(".java"))::iterator) {
                files++;
                List<String> lines = Files.readAllLines(f);
                for (int i = 0; i < lines.size(); i++) {
                    if (LINUX.matcher(lines.get(i)).find()) {
                        offenders.add(cli.relativize(f) + ":" + (i + 1) + ": " + lines.get(i).trim());
                    }
                }
            }
        }
        assertTrue(files > 20, "found the CLI's sources: " + files);
        assertEquals(List.of(), offenders);
    }
}
