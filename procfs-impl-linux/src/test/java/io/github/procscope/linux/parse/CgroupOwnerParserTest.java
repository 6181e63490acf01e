package io.github.procscope.linux.parse;

import io.github.procscope.api.cgroup.CgroupMembership;
import io.github.procscope.api.cgroup.Container;
import io.github.procscope.api.cgroup.ContainerRuntime;
import io.github.procscope.api.cgroup.Owner;
import io.github.procscope.api.cgroup.QosClass;
import io.github.procscope.api.cgroup.SlurmJob;
import io.github.procscope.api.core.ProcfsParseException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.quicktheories.QuickTheory.qt;
import static org.quicktheories.generators.SourceDSL.integers;
import static org.quicktheories.generators.SourceDSL.longs;
import static org.quicktheories.generators.SourceDSL.strings;

/**
 * Owners from whole {@code /proc/PID/cgroup} files, one row per layout: cgroup v1 and v2, each runtime, both kubelet
 * drivers and every QoS class, Slurm on v1 and v2, user sessions, and paths that name nothing.
 */
class CgroupOwnerParserTest {
    private static final Path SOURCE = Path.of("/proc/42/cgroup");
    static final String C = "3f4e5d6c7b8a99887766554433221100ffeeddccbbaa00112233445566778899";
    static final String U = "0b7e6f5a-1c2d-4e3f-9a8b-7c6d5e4f3a2b";
    static final String U_ = U.replace('-', '_');

    /** A v1 file with the same path in memory, cpu,cpuacct, pids and name=systemd, plus the unified line. */
    static String v1(String path) {
        return "12:pids:" + path + "\n4:memory:" + path + "\n3:cpu,cpuacct:" + path
                + "\n1:name=systemd:" + path + "\n0::/\n";
    }

    static String v2(String path) {
        return "0::" + path + "\n";
    }

    record Expect(Optional<ContainerRuntime> runtime, boolean container, Optional<QosClass> qos,
                  Optional<SlurmJob> slurm, Optional<String> unit, Optional<String> slice) {
    }

    static Expect ctr(ContainerRuntime r, String unit, String slice) {
        return new Expect(Optional.ofNullable(r), true, Optional.empty(), Optional.empty(), Optional.ofNullable(unit),
                Optional.ofNullable(slice));
    }

    static Expect pod(ContainerRuntime r, QosClass q, String unit, String slice) {
        return new Expect(Optional.ofNullable(r), true, Optional.of(q), Optional.empty(), Optional.ofNullable(unit),
                Optional.ofNullable(slice));
    }

    static Expect slurm(long job, String step, String unit, String slice) {
        return new Expect(Optional.empty(), false, Optional.empty(), Optional.of(new SlurmJob(job, Optional.ofNullable(step))),
                Optional.ofNullable(unit), Optional.ofNullable(slice));
    }

    static Expect unit(String unit, String slice) {
        return new Expect(Optional.empty(), false, Optional.empty(), Optional.empty(), Optional.ofNullable(unit),
                Optional.ofNullable(slice));
    }

    static Stream<Arguments> layouts() {
        ContainerRuntime dk = ContainerRuntime.DOCKER;
        ContainerRuntime pm = ContainerRuntime.PODMAN;
        ContainerRuntime cd = ContainerRuntime.CONTAINERD;
        ContainerRuntime co = ContainerRuntime.CRIO;
        String kb = "/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod" + U_ + ".slice/";
        String ke = "/kubepods.slice/kubepods-besteffort.slice/kubepods-besteffort-pod" + U_ + ".slice/";
        String kg = "/kubepods.slice/kubepods-pod" + U_ + ".slice/";
        List<Arguments> rows = new java.util.ArrayList<>();
        for (boolean v2 : new boolean[] {false, true}) {
            java.util.function.Function<String, String> f = v2 ? CgroupOwnerParserTest::v2 : CgroupOwnerParserTest::v1;
            String v = v2 ? "v2 " : "v1 ";
            // standalone runtimes, both drivers
            rows.add(Arguments.of(v + "docker cgroupfs", f.apply("/docker/" + C), ctr(dk, null, null)));
            rows.add(Arguments.of(v + "docker systemd", f.apply("/system.slice/docker-" + C + ".scope"),
                    ctr(dk, "docker-" + C + ".scope", "system.slice")));
            rows.add(Arguments.of(v + "podman systemd rootful", f.apply("/machine.slice/libpod-" + C + ".scope/container"),
                    ctr(pm, "libpod-" + C + ".scope", "machine.slice")));
            rows.add(Arguments.of(v + "podman systemd rootless", f.apply("/user.slice/user-1000.slice/user@1000.service"
                    + "/user.slice/libpod-" + C + ".scope"), ctr(pm, "libpod-" + C + ".scope", "user.slice")));
            rows.add(Arguments.of(v + "podman cgroupfs", f.apply("/libpod_parent/libpod-" + C), ctr(pm, null, null)));
            // Kubernetes, systemd driver, three QoS classes, three runtimes
            rows.add(Arguments.of(v + "k8s systemd containerd burstable", f.apply(kb + "cri-containerd-" + C + ".scope"),
                    pod(cd, QosClass.BURSTABLE, "cri-containerd-" + C + ".scope", "kubepods-burstable-pod" + U_ + ".slice")));
            rows.add(Arguments.of(v + "k8s systemd crio besteffort", f.apply(ke + "crio-" + C + ".scope"),
                    pod(co, QosClass.BEST_EFFORT, "crio-" + C + ".scope", "kubepods-besteffort-pod" + U_ + ".slice")));
            rows.add(Arguments.of(v + "k8s systemd docker guaranteed", f.apply(kg + "docker-" + C + ".scope"),
                    pod(dk, QosClass.GUARANTEED, "docker-" + C + ".scope", "kubepods-pod" + U_ + ".slice")));
            rows.add(Arguments.of(v + "kind node k8s systemd containerd", f.apply("/kubelet.slice/kubelet-kubepods.slice"
                            + "/kubelet-kubepods-besteffort.slice/kubelet-kubepods-besteffort-pod" + U_ + ".slice/cri-containerd-"
                            + C + ".scope"),
                    pod(cd, QosClass.BEST_EFFORT, "cri-containerd-" + C + ".scope",
                            "kubelet-kubepods-besteffort-pod" + U_ + ".slice")));
            // Kubernetes, cgroupfs driver
            rows.add(Arguments.of(v + "k8s cgroupfs bare id burstable", f.apply("/kubepods/burstable/pod" + U + "/" + C),
                    pod(null, QosClass.BURSTABLE, null, null)));
            rows.add(Arguments.of(v + "k8s cgroupfs bare id besteffort", f.apply("/kubepods/besteffort/pod" + U + "/" + C),
                    pod(null, QosClass.BEST_EFFORT, null, null)));
            rows.add(Arguments.of(v + "k8s cgroupfs bare id guaranteed", f.apply("/kubepods/pod" + U + "/" + C),
                    pod(null, QosClass.GUARANTEED, null, null)));
            rows.add(Arguments.of(v + "k8s cgroupfs crio", f.apply("/kubepods/burstable/pod" + U + "/crio-" + C),
                    pod(co, QosClass.BURSTABLE, null, null)));
            // Slurm
            rows.add(Arguments.of(v + "slurm step 0", f.apply(v2 ? "/system.slice/slurmstepd.scope/job_4711/step_0/user/task_0"
                    : "/slurm/uid_1000/job_4711/step_0/task_0"), v2 ? slurm(4711, "0", "slurmstepd.scope", "system.slice")
                    : slurm(4711, "0", null, null)));
            rows.add(Arguments.of(v + "slurm batch step", f.apply(v2 ? "/system.slice/node7_slurmstepd.scope/job_12/step_batch/user/task_0"
                    : "/slurm_node7/uid_0/job_12/step_batch/task_0"), v2 ? slurm(12, "batch", "node7_slurmstepd.scope", "system.slice")
                    : slurm(12, "batch", null, null)));
            rows.add(Arguments.of(v + "slurm job outside steps", f.apply(v2 ? "/system.slice/slurmstepd.scope/job_99"
                    : "/slurm/uid_5/job_99"), v2 ? slurm(99, null, "slurmstepd.scope", "system.slice") : slurm(99, null, null, null)));
            // systemd units and user slices
            rows.add(Arguments.of(v + "user session", f.apply("/user.slice/user-1000.slice/session-2.scope"),
                    unit("session-2.scope", "user-1000.slice")));
            rows.add(Arguments.of(v + "user manager service", f.apply("/user.slice/user-1000.slice/user@1000.service/app.slice/"
                    + "app-gnome-firefox-3721.scope"), unit("app-gnome-firefox-3721.scope", "app.slice")));
            rows.add(Arguments.of(v + "system service", f.apply("/system.slice/sshd.service"), unit("sshd.service", "system.slice")));
            rows.add(Arguments.of(v + "init", f.apply("/init.scope"), unit("init.scope", null)));
            rows.add(Arguments.of(v + "containerd daemon is not a container", f.apply("/system.slice/containerd.service"),
                    unit("containerd.service", "system.slice")));
        }
        // the unified line alone names the user session on a hybrid machine whose v1 paths are all /
        rows.add(Arguments.of("hybrid: unified path", "4:memory:/\n1:name=systemd:/user.slice/user-0.slice/session-1.scope\n"
                + "0::/user.slice/user-0.slice/session-1.scope\n", unit("session-1.scope", "user-0.slice")));
        // Slurm v1 puts the job in memory and cpu while systemd keeps slurmd's unit: the job wins
        rows.add(Arguments.of("hybrid: slurm in memory, unit in name=systemd", "4:memory:/slurm/uid_1000/job_7/step_2/task_0\n"
                + "1:name=systemd:/system.slice/slurmd.service\n0::/system.slice/slurmd.service\n", slurm(7, "2", null, null)));
        return rows.stream();
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("layouts")
    void eachLayoutNamesItsOwner(String name, String file, Expect e) {
        Owner o = parse(file).owner().orElseThrow(() -> new AssertionError(name + ": no owner"));
        assertEquals(e.runtime(), o.runtime(), name);
        assertEquals(e.container(), o.container().isPresent(), name);
        o.container().ifPresent(c -> assertEquals(C, c.id(), name));
        assertEquals(e.qos(), o.qosClass(), name);
        assertEquals(e.qos().isPresent() ? Optional.of(U) : Optional.empty(), o.podUid(), name);
        assertEquals(e.slurm(), o.slurm(), name);
        assertEquals(e.unit(), o.systemdUnit(), name);
        assertEquals(e.slice(), o.systemdSlice(), name);
    }

    @Test
    void pathsThatNameNothingHaveNoOwner() {
        for (String path : List.of("/", "/process_api/df0ec9c04d4a705159706e6e2ae2f63c", "/" + C, "/default/" + C,
                "/docker", "/docker/" + C.substring(1), "/docker/" + C.toUpperCase(), "/kubepods/burstable",
                "/kubepods/burstable/podnot-a-uid/" + C, "/libpod-conmon-" + C, "/crio-conmon-" + C,
                "/slurm/uid_1/job_x/step_0", "/slurm/uid_1/job_0", "/.slice", "/.scope")) {
            assertEquals(Optional.empty(), parse(v2(path)).owner(), path);
        }
    }

    @Test
    void aMonitorBesideAContainerIsNotTheContainer() {
        Owner crio = parse(v2("/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod" + U_ + ".slice/crio-conmon-"
                + C + ".scope")).owner().orElseThrow();
        assertEquals(Optional.empty(), crio.container());
        assertEquals(Optional.of(U), crio.podUid());
        Owner conmon = parse(v2("/machine.slice/libpod-conmon-" + C + ".scope")).owner().orElseThrow();
        assertEquals(Optional.empty(), conmon.container());
        assertEquals(Optional.of("libpod-conmon-" + C + ".scope"), conmon.systemdUnit());
    }

    @Test
    void nestedContainersNameTheInnermost() {
        String inner = "00000000000000000000000000000000000000000000000000000000000000aa";
        Owner o = parse(v2("/docker/" + C + "/docker/" + inner)).owner().orElseThrow();
        assertEquals(inner, o.container().orElseThrow().id());
    }

    @Test
    void aStaticPodsHashIsAPodUid() {
        String hash = "5a1b2c3d4e5f60718293a4b5c6d7e8f9";
        Owner o = parse(v2("/kubepods/besteffort/pod" + hash + "/" + C)).owner().orElseThrow();
        assertEquals(Optional.of(hash), o.podUid());
    }

    @Test
    void membershipKeepsEveryControllersPath() {
        CgroupMembership m = parse("9:name=systemd:/\n4:memory:/process_api/x\n3:cpu,cpuacct:/a\n0::/\n");
        assertEquals(Optional.of("/"), m.unifiedPath());
        assertEquals(Map.of("name=systemd", "/", "memory", "/process_api/x", "cpu", "/a", "cpuacct", "/a"), m.controllerPaths());
        assertEquals(Optional.of("/process_api/x"), m.path("memory"));
        assertEquals(Optional.empty(), m.path("pids"));
        assertEquals(Optional.of("/u"), parse("0::/u\n").path("memory"), "pure v2: the unified path");
    }

    /** Generated layouts round-trip: whatever the ids, drivers and QoS class, the parser returns exactly them. */
    @Test
    void generatedKubernetesPathsRoundTrip() {
        qt().forAll(longs().all(), longs().all(), integers().between(0, 3 * 4 * 2 - 1))
                .checkAssert((a, b, layout) -> {
                    int qos = layout / 8;
                    int runtime = (layout / 2) % 4;
                    int driver = layout % 2;
                    String id = String.format("%016x%016x%016x%016x", a, b, a ^ b, a + b);
                    String uid = String.format("%08x-%04x-%04x-%04x-%012x", (int) (a >>> 32), (int) (b & 0xffff),
                            (int) ((a >>> 16) & 0xffff), (int) ((b >>> 32) & 0xffff), b & 0xffffffffffffL);
                    QosClass q = QosClass.values()[qos];
                    String path = driver == 0 ? systemdPod(q, uid, runtime, id) : cgroupfsPod(q, uid, runtime, id);
                    Owner o = CgroupOwnerParser.owner(path).orElseThrow(() -> new AssertionError(path));
                    assertEquals(Optional.of(uid), o.podUid(), path);
                    assertEquals(Optional.of(q), o.qosClass(), path);
                    assertEquals(id, o.container().orElseThrow().id(), path);
                });
    }

    private static String systemdPod(QosClass q, String uid, int runtime, String id) {
        String level = q == QosClass.GUARANTEED ? "kubepods" : q == QosClass.BURSTABLE ? "kubepods-burstable" : "kubepods-besteffort";
        String prefix = new String[] {"cri-containerd-", "crio-", "docker-", "crio-"}[runtime];
        return "/kubepods.slice/" + (q == QosClass.GUARANTEED ? "" : level + ".slice/") + level + "-pod" + uid.replace('-', '_')
                + ".slice/" + prefix + id + ".scope";
    }

    private static String cgroupfsPod(QosClass q, String uid, int runtime, String id) {
        String level = q == QosClass.GUARANTEED ? "" : q == QosClass.BURSTABLE ? "burstable/" : "besteffort/";
        return "/kubepods/" + level + "pod" + uid + "/" + (runtime == 1 ? "crio-" : "") + id;
    }

    /** Never guessed: on any path, a container id in the result appears verbatim in the path, and so does the pod. */
    @Test
    void anOwnerIsOnlyWhatThePathSpellsOut() {
        qt().forAll(strings().basicLatinAlphabet().ofLengthBetween(0, 200)).checkAssert(s -> {
            String path = "/" + s.replace("\n", "");
            Optional<Owner> o = CgroupOwnerParser.owner(path);
            o.flatMap(Owner::container).ifPresent(c -> assertTrue(path.contains(c.id()), path));
            o.flatMap(Owner::podUid).ifPresent(u -> assertTrue(path.contains(u) || path.contains(u.replace('-', '_')), path));
            o.flatMap(Owner::slurm).ifPresent(j -> assertTrue(path.contains("job_" + j.jobId()), path));
        });
    }

    @Test
    void pathsWithoutAnyKeywordHaveNoOwner() {
        qt().forAll(strings().allPossible().ofLengthBetween(0, 100)).checkAssert(s -> {
            String path = "/" + s.replace(".s", "").replace("slurm", "").replace("kubepods", "").replace("docker", "")
                    .replace("libpod", "").replace("crio", "").replace("cri-containerd", "");
            assertFalse(CgroupOwnerParser.owner(path).isPresent(), path);
        });
    }

    @Test
    void arbitraryFilesFailOnlyWithAParseException() {
        qt().forAll(strings().allPossible().ofLengthBetween(0, 200)).checkAssert(s -> {
            byte[] b = s.getBytes(StandardCharsets.UTF_8);
            try {
                CgroupOwnerParser.membership(SOURCE, b, b.length);
            } catch (ProcfsParseException expected) {
                // the only failure allowed
            }
        });
    }

    private static CgroupMembership parse(String file) {
        byte[] b = file.getBytes(StandardCharsets.US_ASCII);
        return CgroupOwnerParser.membership(SOURCE, b, b.length);
    }
}
