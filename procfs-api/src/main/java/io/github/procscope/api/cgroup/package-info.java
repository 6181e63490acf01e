/**
 * Whose process is this: a process's cgroup membership ({@code /proc/PID/cgroup}) and the workload the
 * cgroup paths name: a container (Docker, Podman, containerd, CRI-O), a Kubernetes pod and its QoS class,
 * a Slurm job and step, a systemd unit and slice. Read with {@link io.github.procscope.api.process.Facet#CGROUP};
 * see {@link io.github.procscope.api.process.ProcessInfo#cgroup()} and {@link io.github.procscope.api.process.ProcessInfo#owner()}.
 *
 * <p>Attribution is read from the paths' names only, by the naming rules each runtime, the kubelet (both
 * cgroup drivers) and Slurm document; a path that follows none of them leaves the owner empty. Nothing is
 * guessed from a hexadecimal-looking name alone.
 */
package io.github.procscope.api.cgroup;
