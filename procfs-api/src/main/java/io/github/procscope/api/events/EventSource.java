package io.github.procscope.api.events;

/** Where events come from, best first. */
public enum EventSource {
    /**
     * The kernel's process connector ({@code NETLINK_CONNECTOR}, {@code CN_IDX_PROC}): every fork, exec and exit
     * as it happens, with exit status. Needs {@code CAP_NET_ADMIN} in the initial user and network namespaces.
     */
    NETLINK,
    /**
     * Two snapshots of the process table compared at an interval: works everywhere, but sees no process that
     * lived less than the interval and learns no exit status.
     */
    SNAPSHOT_DIFF
}
