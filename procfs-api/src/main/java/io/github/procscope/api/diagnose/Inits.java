package io.github.procscope.api.diagnose;

import java.util.Objects;
import java.util.Set;

/**
 * Programs that act as an init: they reap the orphans the kernel re-parents to them. A PID 1 that is not
 * one of these (in a container, usually the application itself) leaves adopted zombies unreaped.
 */
public final class Inits {
    private static final Set<String> NAMES = Set.of("systemd", "init", "tini", "tini-static", "dumb-init",
            "docker-init", "catatonit", "s6-svscan", "runit", "runit-init", "openrc-init", "upstart", "sinit",
            "busybox", "supervisord", "launchd", "containerd-shim", "conmon", "podman-init", "pause", "runsvdir");

    private Inits() {
    }

    /**
     * {@return whether it names a known init or reaping supervisor ({@code systemd}, {@code init}, {@code
     * tini}, {@code dumb-init}, {@code docker-init}, {@code catatonit}, {@code s6-svscan}, {@code runit},
     * {@code supervisord}, the Kubernetes {@code pause} container, ...)}
     *
     * @param comm a process's command name ({@code /proc/PID/comm})
     */
    public static boolean isInit(String comm) {
        Objects.requireNonNull(comm, "comm");
        return NAMES.contains(comm) || comm.startsWith("systemd");
    }
}
