package io.github.procscope.linux.parse;

import io.github.procscope.api.cgroup.CgroupMembership;
import io.github.procscope.api.cgroup.Container;
import io.github.procscope.api.cgroup.ContainerRuntime;
import io.github.procscope.api.cgroup.Owner;
import io.github.procscope.api.cgroup.QosClass;
import io.github.procscope.api.cgroup.SlurmJob;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Reads the owner of a process from the names on its cgroup paths, segment by segment, by the naming rules
 * of the runtimes, the kubelet's two cgroup drivers and Slurm:
 *
 * <table>
 * <caption>Segments recognised</caption>
 * <tr><th>segment</th><th>means</th><th>written by</th></tr>
 * <tr><td>{@code kubepods}, {@code kubepods.slice}, {@code *-kubepods.slice}</td><td>Kubernetes pods below</td>
 *     <td>kubelet (cgroupfs, systemd; kind's {@code kubelet-kubepods.slice})</td></tr>
 * <tr><td>{@code burstable}, {@code besteffort}, {@code kubepods-burstable.slice},
 *     {@code kubepods-besteffort.slice}</td><td>QoS class (absent: guaranteed)</td><td>kubelet</td></tr>
 * <tr><td>{@code podUID}, {@code kubepods[-QOS]-podUID.slice} (dashes as {@code _})</td><td>pod UID</td>
 *     <td>kubelet</td></tr>
 * <tr><td>{@code ID} right after a pod</td><td>container, runtime not named</td><td>kubelet cgroupfs driver</td></tr>
 * <tr><td>{@code docker/ID}, {@code docker-ID.scope}</td><td>Docker container</td><td>dockerd</td></tr>
 * <tr><td>{@code libpod-ID}, {@code libpod-ID.scope}</td><td>Podman container</td><td>podman</td></tr>
 * <tr><td>{@code cri-containerd-ID.scope}</td><td>containerd container</td><td>containerd CRI</td></tr>
 * <tr><td>{@code crio-ID}, {@code crio-ID.scope}</td><td>CRI-O container</td><td>CRI-O</td></tr>
 * <tr><td>{@code slurm}, {@code slurm_NODE}, {@code *slurmstepd.scope}, then {@code job_N}, {@code step_S}</td>
 *     <td>Slurm job and step</td><td>slurmd (cgroup v1, v2)</td></tr>
 * <tr><td>{@code *.slice}, {@code *.scope}, {@code *.service}</td><td>systemd slice, unit</td><td>systemd</td></tr>
 * </table>
 *
 * <p>An id is a container id only with 64 lowercase hexadecimal digits in one of these places; a monitor
 * beside a container ({@code libpod-conmon-ID.scope}, {@code crio-conmon-ID.scope}) is not the container.
 * A path that matches none of the rows has no owner.
 */
public final class CgroupOwnerParser {
    /** Per-segment rules for containers: prefix, suffix, runtime. The id lies between. */
    private static final List<ContainerRule> CONTAINER_RULES = List.of(
            new ContainerRule("docker-", ".scope", ContainerRuntime.DOCKER),
            new ContainerRule("libpod-", ".scope", ContainerRuntime.PODMAN),
            new ContainerRule("libpod-", "", ContainerRuntime.PODMAN),
            new ContainerRule("cri-containerd-", ".scope", ContainerRuntime.CONTAINERD),
            new ContainerRule("crio-", ".scope", ContainerRuntime.CRIO),
            new ContainerRule("crio-", "", ContainerRuntime.CRIO));

    private record ContainerRule(String prefix, String suffix, ContainerRuntime runtime) {
        Optional<Container> match(String segment) {
            if (segment.length() != prefix.length() + Container.ID_LENGTH + suffix.length()
                    || !segment.startsWith(prefix) || !segment.endsWith(suffix)) {
                return Optional.empty();
            }
            String id = segment.substring(prefix.length(), prefix.length() + Container.ID_LENGTH);
            return Container.isId(id) ? Optional.of(new Container(Optional.of(runtime), id)) : Optional.empty();
        }
    }

    /** v1 controllers whose path is looked at first (after the unified path), in this order. */
    private static final List<String> PREFERRED = List.of("memory", "pids", "cpu", "name=systemd");

    private CgroupOwnerParser() {
    }

    /**
     * The membership of one process from the lines of its {@code /proc/PID/cgroup}.
     *
     * @param lines the parsed lines
     * @return the membership, with the owner the paths name
     */
    static CgroupMembership membership(List<ProcCgroupParser.Membership> lines) {
        Optional<String> unified = Optional.empty();
        Map<String, String> v1 = new LinkedHashMap<>();
        for (ProcCgroupParser.Membership m : lines) {
            if (m.isV2()) {
                unified = Optional.of(m.path());
            } else {
                for (String c : m.controllers()) {
                    v1.put(c, m.path());
                }
            }
        }
        return new CgroupMembership(unified, v1, owner(unified, v1));
    }

    /** @return the membership read from a {@code /proc/PID/cgroup} file's bytes */
    public static CgroupMembership membership(Path source, byte[] buf, int len) {
        return membership(ProcCgroupParser.parse(source, buf, len));
    }

    /**
     * The owner named by a process's paths: the first path (unified, then memory, pids, cpu, name=systemd, then
     * the other v1 hierarchies) that names a container, pod or Slurm job; failing that, the first that names a
     * systemd unit or slice.
     */
    public static Optional<Owner> owner(Optional<String> unified, Map<String, String> v1) {
        List<String> candidates = new ArrayList<>();
        unified.ifPresent(candidates::add);
        for (String c : PREFERRED) {
            if (v1.containsKey(c)) {
                candidates.add(v1.get(c));
            }
        }
        v1.entrySet().stream().filter(e -> !PREFERRED.contains(e.getKey())).map(Map.Entry::getValue)
                .sorted().forEach(candidates::add);
        Optional<Owner> fallback = Optional.empty();
        for (String path : candidates) {
            Optional<Owner> o = owner(path);
            if (o.isPresent() && (o.get().containerized() || o.get().slurm().isPresent())) {
                return o;
            }
            if (fallback.isEmpty()) {
                fallback = o;
            }
        }
        return fallback;
    }

    /**
     * @param path one cgroup path
     * @return the owner it names; empty when it names none
     */
    static Optional<Owner> owner(String path) {
        Optional<Container> container = Optional.empty();
        String podUid = null;
        QosClass qos = null;
        boolean kube = false;
        boolean slurm = false;
        long jobId = 0;
        String step = null;
        String unit = null;
        String slice = null;
        String previous = "";
        int i = 0;
        int n = path.length();
        while (i < n) {
            int end = path.indexOf('/', i);
            if (end < 0) {
                end = n;
            }
            String s = path.substring(i, end);
            i = end + 1;
            if (s.isEmpty()) {
                continue;
            }
            // Kubernetes: root, QoS level, pod
            if (s.equals("kubepods") || s.equals("kubepods.slice") || s.endsWith("-kubepods.slice")) {
                kube = true;
                podUid = null;
                qos = null;
            } else if (kube && podUid == null && qos == null && qosLevel(s) != null) {
                qos = qosLevel(s);
            } else if (kube && podUid == null && podSegment(s) != null) {
                podUid = podSegment(s);
                if (qos == null) {
                    qos = QosClass.GUARANTEED;
                }
            } else {
                Optional<Container> c = containerSegment(s, previous, kube && podUid != null);
                if (c.isPresent()) {
                    container = c;
                }
            }
            // Slurm: the root of its hierarchy, then job_N, then step_S
            if (s.equals("slurm") || s.startsWith("slurm_") || s.endsWith("slurmstepd.scope")) {
                slurm = true;
                jobId = 0;
                step = null;
            } else if (slurm && jobId == 0 && s.startsWith("job_")) {
                jobId = positive(s.substring(4));
            } else if (slurm && jobId > 0 && step == null && s.startsWith("step_") && isStepName(s.substring(5))) {
                step = s.substring(5);
            }
            // systemd
            if (s.length() > ".slice".length() && s.endsWith(".slice")) {
                slice = s;
            } else if (s.length() > ".scope".length() && s.endsWith(".scope")
                    || s.length() > ".service".length() && s.endsWith(".service")) {
                unit = s;
            }
            previous = s;
        }
        Optional<SlurmJob> job = jobId > 0 ? Optional.of(new SlurmJob(jobId, Optional.ofNullable(step)))
                : Optional.empty();
        if (podUid == null) {
            qos = null;
        }
        if (container.isEmpty() && podUid == null && job.isEmpty() && unit == null && slice == null) {
            return Optional.empty();
        }
        return Optional.of(new Owner(container, Optional.ofNullable(podUid), Optional.ofNullable(qos), job,
                Optional.ofNullable(unit), Optional.ofNullable(slice)));
    }

    private static Optional<Container> containerSegment(String s, String previous, boolean inPod) {
        for (ContainerRule r : CONTAINER_RULES) {
            Optional<Container> c = r.match(s);
            if (c.isPresent()) {
                return c;
            }
        }
        if (Container.isId(s)) {
            if (previous.equals("docker")) {
                return Optional.of(new Container(Optional.of(ContainerRuntime.DOCKER), s));
            }
            if (inPod) {
                return Optional.of(new Container(Optional.empty(), s));
            }
        }
        return Optional.empty();
    }

    private static QosClass qosLevel(String s) {
        return switch (s) {
            case "burstable", "kubepods-burstable.slice" -> QosClass.BURSTABLE;
            case "besteffort", "kubepods-besteffort.slice" -> QosClass.BEST_EFFORT;
            default -> s.endsWith("-kubepods-burstable.slice") ? QosClass.BURSTABLE
                    : s.endsWith("-kubepods-besteffort.slice") ? QosClass.BEST_EFFORT : null;
        };
    }

    /** @return the pod UID of {@code podUID} (cgroupfs) or {@code kubepods[-QOS]-podUID.slice} (systemd) */
    private static String podSegment(String s) {
        if (s.startsWith("pod")) {
            String uid = s.substring(3);
            return isPodUid(uid) ? uid : null;
        }
        if (s.endsWith(".slice")) {
            int at = s.lastIndexOf("-pod");
            if (at < 0 || !s.substring(0, at + 1).contains("kubepods")) {
                return null;
            }
            String uid = s.substring(at + 4, s.length() - ".slice".length()).replace('_', '-');
            return isPodUid(uid) ? uid : null;
        }
        return null;
    }

    /** A pod UID: a UUID in lowercase ({@code 8-4-4-4-12}), or a static pod's 32-digit hash. */
    static boolean isPodUid(String s) {
        if (s.length() == 32) {
            return isHex(s, 0, 32);
        }
        if (s.length() != 36) {
            return false;
        }
        for (int i = 0; i < 36; i++) {
            char c = s.charAt(i);
            boolean dash = i == 8 || i == 13 || i == 18 || i == 23;
            if (dash ? c != '-' : !isHex(c)) {
                return false;
            }
        }
        return true;
    }

    private static boolean isStepName(String s) {
        if (s.isEmpty() || s.length() > 32) {
            return false;
        }
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (!(c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c == '_')) {
                return false;
            }
        }
        return true;
    }

    /** @return the decimal number, or 0 when it is not a positive decimal below 2^63 */
    private static long positive(String s) {
        if (s.isEmpty() || s.length() > 18) {
            return 0;
        }
        long v = 0;
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c < '0' || c > '9') {
                return 0;
            }
            v = v * 10 + (c - '0');
        }
        return v;
    }

    private static boolean isHex(String s, int from, int to) {
        for (int i = from; i < to; i++) {
            if (!isHex(s.charAt(i))) {
                return false;
            }
        }
        return true;
    }

    private static boolean isHex(char c) {
        return c >= '0' && c <= '9' || c >= 'a' && c <= 'f';
    }
}
