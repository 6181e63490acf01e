package io.github.procscope.api.kubernetes;

import org.junit.jupiter.api.Test;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The Kubernetes values and settings of the API, and the provider's absence without its module. */
class KubernetesValuesTest {
    @Test
    void theDefaultsAreTheUsualSockets() {
        KubernetesOptions d = KubernetesOptions.defaults();
        assertEquals(List.of(Path.of("/run/containerd/containerd.sock"), Path.of("/var/run/crio/crio.sock")),
                d.criSockets());
        assertEquals(Optional.of(Path.of("/var/lib/kubelet/pod-resources/kubelet.sock")), d.podResourcesSocket());
        assertEquals(Duration.ofSeconds(1), d.deadline());
        assertEquals(Duration.ofSeconds(10), d.backgroundDeadline());
        assertEquals(Duration.ofSeconds(5), d.maxAge());
        assertEquals(16 * 1024 * 1024, d.maxMessageBytes());
        assertEquals(Set.of("nvidia.com/gpu"), d.gpuResources());
    }

    @Test
    void eachWitherChangesOneSetting() {
        KubernetesOptions d = KubernetesOptions.defaults();
        KubernetesOptions o = d.withCriSocket(Path.of("/run/k3s/containerd/containerd.sock"))
                .withPodResourcesSocket(Path.of("/pr.sock")).withDeadline(Duration.ofSeconds(20))
                .withMaxAge(Duration.ZERO);
        assertEquals(new KubernetesOptions(List.of(Path.of("/run/k3s/containerd/containerd.sock")),
                Optional.of(Path.of("/pr.sock")), Duration.ofSeconds(20), Duration.ZERO, d.maxMessageBytes(),
                d.gpuResources()), o);
        assertEquals(Duration.ofSeconds(20), o.backgroundDeadline(), "a long deadline is its own background deadline");
    }

    @Test
    void badSettingsAreRefusedWithTheirValue() {
        KubernetesOptions d = KubernetesOptions.defaults();
        for (Duration bad : List.of(Duration.ZERO, Duration.ofMillis(-1), Duration.ofMinutes(2))) {
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> d.withDeadline(bad));
            assertTrue(e.getMessage().contains(bad.toString()), e.getMessage());
        }
        assertThrows(IllegalArgumentException.class, () -> d.withMaxAge(Duration.ofSeconds(-1)));
        assertThrows(IllegalArgumentException.class, () -> new KubernetesOptions(d.criSockets(),
                d.podResourcesSocket(), d.deadline(), d.maxAge(), 100, d.gpuResources()));
        assertThrows(IllegalArgumentException.class, () -> new KubernetesOptions(d.criSockets(),
                d.podResourcesSocket(), d.deadline(), d.maxAge(), d.maxMessageBytes(), Set.of("")));
    }

    @Test
    void aPodContainersNamesArePrintable() {
        assertEquals("trainer-0", new PodContainer("ml", "trainer-0", Optional.empty(), "trainer").pod());
        String longest = "p".repeat(PodContainer.MAX_NAME_LENGTH);
        assertEquals(longest, new PodContainer("ml", longest, Optional.of("u"), "c").pod());
        for (String bad : List.of("", "p".repeat(PodContainer.MAX_NAME_LENGTH + 1), "a\nb", "a\u0000b", "\u009b")) {
            assertThrows(IllegalArgumentException.class, () -> new PodContainer("ml", bad, Optional.empty(), "c"));
            assertThrows(IllegalArgumentException.class, () -> new PodContainer(bad, "p", Optional.empty(), "c"));
            assertThrows(IllegalArgumentException.class, () -> new PodContainer("ml", "p", Optional.of(bad), "c"));
            assertThrows(IllegalArgumentException.class, () -> new PodContainer("ml", "p", Optional.empty(), bad));
        }
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> new PodContainer("ml", "a\nb", Optional.empty(), "c"));
        assertTrue(e.getMessage().contains("U+000A"), e.getMessage());
    }
}
