package io.github.procscope.testing;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.URISyntaxException;
import java.net.URL;
import java.nio.file.FileSystem;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.stream.Stream;

/**
 * The fixture trees of {@code procfs-impl-linux}'s tests ({@code fixtures/NAME} on the test class path),
 * as real directories: read in place when they are files, copied out when they come from the test-jar.
 */
public final class FixtureTrees {
    private FixtureTrees() {
    }

    /**
     * Copies a tree, for a test that changes a fixture without touching the original.
     *
     * @param src  the tree (on any file system, a jar's included)
     * @param dest where the copy goes; created
     * @return {@code dest}
     * @throws IOException if a file cannot be copied
     */
    public static Path copy(Path src, Path dest) throws IOException {
        try (Stream<Path> s = Files.walk(src)) {
            for (Path p : (Iterable<Path>) s::iterator) {
                Path d = dest.resolve(src.relativize(p).toString());
                if (Files.isDirectory(p)) {
                    Files.createDirectories(d);
                } else {
                    Files.copy(p, d);
                }
            }
        }
        return dest;
    }

    /**
     * @param name    the tree's name under {@code fixtures/}, such as {@code proc}
     * @param scratch a directory to copy into when the tree is inside a jar
     * @return a directory holding the tree
     */
    public static Path directory(String name, Path scratch) {
        URL url = FixtureTrees.class.getResource("/fixtures/" + name);
        if (url == null) {
            throw new AssertionError("no fixture tree fixtures/" + name + " on the test class path");
        }
        try {
            URI uri = url.toURI();
            if ("file".equals(uri.getScheme())) {
                return Path.of(uri);
            }
            try (FileSystem jar = FileSystems.newFileSystem(uri, Map.of())) {
                return copy(jar.provider().getPath(uri), scratch.resolve(name));
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (URISyntaxException e) {
            throw new IllegalStateException(e);
        }
    }
}
