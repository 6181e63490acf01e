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
 * Every {@code java} block of README.md is compiled against the project and run. Import lines become
 * the class's imports; the rest becomes the body of {@code main}.
 */
class ReadmeSnippetsTest {

    @Test
    void everyJavaSnippetCompilesAndRuns(@TempDir Path tmp) throws Exception {
        List<String> snippets = Readme.blocks(Readme.text(), "java");
        assertFalse(snippets.isEmpty(), "the README shows code");
        for (int i = 0; i < snippets.size(); i++) {
            String name = "ReadmeSnippet" + i;
            Path src = tmp.resolve(name + ".java");
            Files.writeString(src, wrap(name, snippets.get(i)));
            compile(src, tmp);
            String out = run(tmp, name, src);
            assertFalse(out.isEmpty(), "snippet " + i + " printed nothing:\n" + snippets.get(i));
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
