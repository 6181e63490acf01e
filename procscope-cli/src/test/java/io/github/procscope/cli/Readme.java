package io.github.procscope.cli;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/** The repository's README.md, and its fenced code blocks. */
final class Readme {
    private Readme() {
    }

    /** @return the repository root (the parent of this module's directory) */
    static Path repositoryRoot() {
        Path here = Path.of("").toAbsolutePath();
        for (Path p = here; p != null; p = p.getParent()) {
            if (Files.isRegularFile(p.resolve("README.md")) && Files.isDirectory(p.resolve("procfs-api"))) {
                return p;
            }
        }
        throw new AssertionError("no repository root above " + here);
    }

    static String text() {
        try {
            return Files.readString(repositoryRoot().resolve("README.md"));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** @return the contents of every fenced block with the given info string, in order */
    static List<String> blocks(String text, String language) {
        List<String> out = new ArrayList<>();
        String[] lines = text.split("\n", -1);
        StringBuilder current = null;
        for (String line : lines) {
            if (current == null && line.strip().equals("```" + language)) {
                current = new StringBuilder();
            } else if (current != null && line.strip().equals("```")) {
                out.add(current.toString());
                current = null;
            } else if (current != null) {
                current.append(line).append('\n');
            }
        }
        return out;
    }

    /** @return the text of the section under the given heading, up to the next heading of any level */
    static String section(String text, String heading) {
        int start = text.indexOf("\n" + heading + "\n");
        if (start < 0) {
            throw new AssertionError("README has no heading '" + heading + "'");
        }
        int bodyStart = start + heading.length() + 2;
        int next = text.indexOf("\n#", bodyStart);
        while (next >= 0 && insideFence(text, next)) {
            next = text.indexOf("\n#", next + 2);
        }
        return text.substring(bodyStart, next < 0 ? text.length() : next);
    }

    private static boolean insideFence(String text, int index) {
        int fences = 0;
        int i = text.indexOf("```");
        while (i >= 0 && i < index) {
            fences++;
            i = text.indexOf("```", i + 3);
        }
        return fences % 2 == 1;
    }
}
