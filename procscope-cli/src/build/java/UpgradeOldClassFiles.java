import org.objectweb.asm.ClassReader;
import org.objectweb.asm.ClassVisitor;
import org.objectweb.asm.ClassWriter;
import org.objectweb.asm.Opcodes;
import org.objectweb.asm.tree.ClassNode;
import org.objectweb.asm.tree.MethodNode;
import org.objectweb.asm.tree.analysis.Analyzer;
import org.objectweb.asm.tree.analysis.AnalyzerException;
import org.objectweb.asm.tree.analysis.BasicValue;
import org.objectweb.asm.tree.analysis.SimpleVerifier;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.zip.ZipEntry;
import java.util.zip.ZipInputStream;
import java.util.zip.ZipOutputStream;

/**
 * A build step of the tool's jar (run by procscope-cli's POM after the shade plugin made it): gives every class
 * file older than Java 6 (major version below 50; picocli's are Java 5) stack map frames and the Java 8 class
 * file version, in place. Such old class files go through the JVM's slow type-inferring verifier at every start
 * and are left out of class-data archives (AppCDS on 17, the AOT cache on 25), so they cost a one-shot command
 * a large part of its start-up. Nothing else changes: same bytecode, same constant pool entries, same entries
 * in the same order. Every rewritten method is verified (ASM's analyzer with type checks against the jar's own
 * classes) before the jar is replaced; a class that does not verify fails the build.
 *
 * <p>Usage: {@code java -cp ASM_JARS UpgradeOldClassFiles JAR}; silent when it upgraded something.
 */
public final class UpgradeOldClassFiles {
    private static final int JAVA_6 = 50;

    private UpgradeOldClassFiles() {
    }

    public static void main(String[] args) throws Exception {
        if (args.length != 1) {
            System.err.println("usage: UpgradeOldClassFiles JAR");
            System.exit(2);
        }
        Path jar = Path.of(args[0]);
        Path tmp = jar.resolveSibling(jar.getFileName() + ".upgrading");
        int upgraded = 0;
        try (URLClassLoader classes = new URLClassLoader(new URL[] {jar.toUri().toURL()},
                ClassLoader.getPlatformClassLoader());
             ZipInputStream in = new ZipInputStream(Files.newInputStream(jar));
             ZipOutputStream out = new ZipOutputStream(Files.newOutputStream(tmp))) {
            for (ZipEntry e; (e = in.getNextEntry()) != null; ) {
                byte[] bytes = in.readAllBytes();
                if (!e.isDirectory() && e.getName().endsWith(".class") && majorVersion(bytes) < JAVA_6) {
                    bytes = upgrade(bytes, classes);
                    verify(bytes, classes, e.getName());
                    upgraded++;
                }
                ZipEntry copy = new ZipEntry(e.getName());
                copy.setTime(e.getTime());
                out.putNextEntry(copy);
                out.write(bytes);
                out.closeEntry();
            }
        } catch (IOException | RuntimeException | AnalyzerException e) {
            Files.deleteIfExists(tmp);
            throw e;
        }
        Files.move(tmp, jar, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
        if (upgraded == 0) {
            // picocli alone has hundreds: none means the step no longer does what the start-up figures assume.
            System.err.println("UpgradeOldClassFiles: no class file older than Java 6 in " + jar);
        }
    }

    private static int majorVersion(byte[] classFile) {
        if (classFile.length < 8 || (classFile[0] & 0xff) != 0xCA || (classFile[1] & 0xff) != 0xFE) {
            return Integer.MAX_VALUE; // not a class file: left alone
        }
        return ((classFile[6] & 0xff) << 8) | (classFile[7] & 0xff);
    }

    private static byte[] upgrade(byte[] classFile, ClassLoader classes) {
        ClassReader reader = new ClassReader(classFile);
        ClassWriter writer = new ClassWriter(ClassWriter.COMPUTE_FRAMES) {
            @Override
            protected ClassLoader getClassLoader() {
                return classes;
            }
        };
        reader.accept(new ClassVisitor(Opcodes.ASM9, writer) {
            @Override
            public void visit(int version, int access, String name, String signature, String superName,
                    String[] interfaces) {
                super.visit(Opcodes.V1_8, access, name, signature, superName, interfaces);
            }
        }, ClassReader.SKIP_FRAMES);
        return writer.toByteArray();
    }

    private static void verify(byte[] classFile, ClassLoader classes, String entry) throws AnalyzerException {
        ClassNode node = new ClassNode();
        new ClassReader(classFile).accept(node, 0);
        for (MethodNode m : node.methods) {
            SimpleVerifier verifier = new SimpleVerifier();
            verifier.setClassLoader(classes);
            try {
                new Analyzer<BasicValue>(verifier).analyze(node.name, m);
            } catch (AnalyzerException e) {
                throw new AnalyzerException(e.node, entry + " " + m.name + m.desc + " does not verify after the upgrade: "
                        + e.getMessage());
            }
        }
    }
}
