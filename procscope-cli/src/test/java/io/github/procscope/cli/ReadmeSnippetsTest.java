package io.github.procscope.cli;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import javax.tools.DiagnosticCollector;
import javax.tools.JavaCompiler;
import javax.tools.JavaFileObject;
import javax.tools.StandardJavaFileManager;
import javax.tools.ToolProvider;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Every {@code java} block of README.md and of the pages under {@code docs/} is compiled against the project
 * and run. In a fragment, import lines become the class's imports and the rest becomes the body of
 * {@code main}; a block that starts with {@code package} is a whole class, compiled as written and its
 * {@code main} run; a {@code module} declaration is compiled by the consumer test ({@code ConsumerProjectIT}).
 */
class ReadmeSnippetsTest {

    @Test
    void everyJavaSnippetCompilesAndRuns(@TempDir Path tmp) throws Exception {
        List<String> snippets = Readme.blocks(Readme.text(), "java");
        assertFalse(snippets.isEmpty(), "the README shows code");
        assertTrue(snippets.stream().anyMatch(b -> b.startsWith("package ")), "the README shows a whole class");
        runAll(tmp.resolve("readme"), "README.md", snippets);
    }

    @Test
    void everyJavaSnippetOfTheDocsPagesCompilesAndRuns(@TempDir Path tmp) throws Exception {
        Path docs = Readme.repositoryRoot().resolve("docs");
        List<Path> pages;
        try (var list = Files.list(docs)) {
            pages = list.filter(p -> p.toString().endsWith(".md")).sorted().toList();
        }
        assertFalse(pages.isEmpty(), "docs/ holds pages");
        int shown = 0;
        for (Path page : pages) {
            List<String> snippets = Readme.blocks(Files.readString(page), "java");
            shown += snippets.size();
            runAll(tmp.resolve(page.getFileName().toString().replace(".md", "")), "docs/" + page.getFileName(),
                    snippets);
        }
        assertTrue(shown > 5, "the docs pages show code: " + shown + " blocks");
    }

    private static void runAll(Path dir, String page, List<String> snippets) throws Exception {
        for (int i = 0; i < snippets.size(); i++) {
            String snippet = snippets.get(i);
            if (snippet.startsWith("module ")) {
                continue;
            }
            Path classes = dir.resolve("s" + i);
            Files.createDirectories(classes);
            String name;
            Path src;
            if (snippet.startsWith("package ")) {
                String pkg = snippet.substring("package ".length(), snippet.indexOf(';'));
                java.util.regex.Matcher m = java.util.regex.Pattern.compile("(?m)^public (?:final )?class (\\w+)")
                        .matcher(snippet);
                assertTrue(m.find(), page + ": a whole class names itself: " + snippet);
                name = pkg + "." + m.group(1);
                src = classes.resolve(m.group(1) + ".java");
                Files.writeString(src, snippet);
            } else {
                name = "ReadmeSnippet" + i;
                src = classes.resolve(name + ".java");
                Files.writeString(src, wrap(name, snippet));
            }
            compile(src, classes);
            String out = run(classes, name, src);
            assertFalse(out.isEmpty(), page + " snippet " + i + " printed nothing:\n" + snippet);
        }
    }

    static String wrap(String className, String snippet) {
        StringBuilder imports = new StringBuilder();
        StringBuilder body = new StringBuilder();
        for (String line : snippet.split("\n")) {
            if (line.startsWith("import ")) {
                imports.append(line).append('\n');
            } else {
                body.append("        ").append(line).append('\n');
            }
        }
        return imports + "\npublic class " + className + " {\n    public static void main(String[] args) throws Exception {\n"
                + body + "    }\n}\n";
    }

    private static void compile(Path src, Path out) throws Exception {
        JavaCompiler javac = ToolProvider.getSystemJavaCompiler();
        DiagnosticCollector<JavaFileObject> diags = new DiagnosticCollector<>();
        try (StandardJavaFileManager fm = javac.getStandardFileManager(diags, null, StandardCharsets.UTF_8)) {
            boolean ok = javac.getTask(null, fm, diags,
                    List.of("-classpath", System.getProperty("java.class.path"), "-d", out.toString(), "-Xlint:none"),
                    null, fm.getJavaFileObjects(src)).call();
            assertTrue(ok, "README snippet " + src.getFileName() + " does not compile:\n" + diags.getDiagnostics()
                    + "\n" + Files.readString(src));
        }
    }

    /**
     * Runs a snippet with its standard output and error captured.
     *
     * @return what it printed on its standard output
     * @throws AssertionError when it throws, with what it printed on both and its source
     */
    private static String run(Path classes, String name, Path src) throws Exception {
        PrintStream savedOut = System.out;
        PrintStream savedErr = System.err;
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        try (URLClassLoader loader = new URLClassLoader(new URL[] {classes.toUri().toURL()},
                ReadmeSnippetsTest.class.getClassLoader())) {
            System.setOut(new PrintStream(out, true, StandardCharsets.UTF_8));
            System.setErr(new PrintStream(err, true, StandardCharsets.UTF_8));
            Method main = loader.loadClass(name).getMethod("main", String[].class);
            main.invoke(null, (Object) new String[0]);
        } catch (InvocationTargetException e) {
            throw new AssertionError("README snippet " + name + " failed: " + e.getCause()
                    + "\n--- its standard output:\n" + out.toString(StandardCharsets.UTF_8)
                    + "\n--- its standard error:\n" + err.toString(StandardCharsets.UTF_8)
                    + "\n--- its source:\n" + Files.readString(src), e.getCause());
        } finally {
            System.setOut(savedOut);
            System.setErr(savedErr);
        }
        String printed = out.toString(StandardCharsets.UTF_8);
        // what a snippet that passed wrote to its standard error, kept in the test's report
        savedErr.print(err.toString(StandardCharsets.UTF_8));
        return printed;
    }
}
