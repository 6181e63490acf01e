package io.github.procscope.kubernetes;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A JVM of the JDK the tests run on (17, or 25 with {@code -Djvm=...}) resolves names through gRPC, Netty's epoll
 * unix sockets and protobuf-java, and prints its answer and nothing else: no JVM warning about native access or
 * {@code sun.misc.Unsafe}, no Netty warning about socket options.
 */
class NoJvmWarningsIT {
    private static final String ANSWER = "PodContainer[namespace=ml, pod=trainer-0, podUid=Optional[uid-0],"
            + " container=trainer] [PodContainer[namespace=ml, pod=trainer-0, podUid=Optional[uid-0],"
            + " container=trainer]]\n";

    /** @return the options the README gives a consumer for this module on this JDK */
    private static List<String> documentedOptions() {
        List<String> o = new ArrayList<>(List.of("--enable-native-access=ALL-UNNAMED"));
        if (Runtime.version().feature() >= 24) {
            o.add("--sun-misc-unsafe-memory-access=allow");
        }
        return o;
    }

    @Test
    void withTheDocumentedOptionsTheJvmPrintsOnlyTheAnswer(@TempDir Path dir) {
        ChildJvm r = ChildJvm.run(ChildJvm.onClassPath(documentedOptions(), NamesMain.class, dir.toString()),
                Duration.ofMinutes(2));
        assertEquals("", r.stderr());
        assertEquals(ANSWER, r.stdout());
        assertEquals(0, r.exitCode());
    }

    /**
     * Without {@code --sun-misc-unsafe-memory-access=allow} on JDK 24 and later, the one warning is JEP 498's
     * about protobuf-java's {@code sun.misc.Unsafe} calls (through 4.36, protobuf-java calls it unless the JVM
     * denies it): Netty prints none of its own.
     */
    @Test
    void withoutTheUnsafeOptionTheOnlyWarningIsProtobufs(@TempDir Path dir) {
        ChildJvm r = ChildJvm.run(ChildJvm.onClassPath(List.of("--enable-native-access=ALL-UNNAMED"),
                NamesMain.class, dir.toString()), Duration.ofMinutes(2));
        assertEquals(ANSWER, r.stdout());
        for (String line : r.stderr().lines().toList()) {
            assertTrue(line.equals("WARNING: A terminally deprecated method in sun.misc.Unsafe has been called")
                    || line.startsWith("WARNING: sun.misc.Unsafe::") && (line.contains("com.google.protobuf.")
                    || line.endsWith("will be removed in a future release"))
                    || line.equals("WARNING: Please consider reporting this to the maintainers of class"
                    + " com.google.protobuf.UnsafeUtil"), "unexpected: " + line + "\n" + r.stderr());
        }
    }
}
