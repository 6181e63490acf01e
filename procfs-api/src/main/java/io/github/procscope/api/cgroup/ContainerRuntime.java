package io.github.procscope.api.cgroup;

/** The container runtime whose naming a cgroup path follows. */
public enum ContainerRuntime {
    /** Docker: {@code /docker/ID} (cgroupfs driver) or {@code docker-ID.scope} (systemd driver). */
    DOCKER,
    /** Podman: {@code libpod-ID.scope} (systemd) or {@code /libpod_parent/libpod-ID} (cgroupfs). */
    PODMAN,
    /** containerd's CRI plugin: {@code cri-containerd-ID.scope} (systemd driver). */
    CONTAINERD,
    /** CRI-O: {@code crio-ID.scope} (systemd driver) or {@code crio-ID} (cgroupfs). */
    CRIO
}
