package io.github.procscope.api.events;

/** Where events come from, best first. */
public enum EventSource {
    /**
     * The kernel's process connector ({@code NETLINK_CONNECTOR}, {@code CN_IDX_PROC}): every fork, exec, rename
     * ({@code PROC_EVENT_COMM}) and exit as it happens, with exit status. Needs {@code CAP_NET_ADMIN} in the initial
     * user and network namespaces.
     */
    NETLINK,
    /**
     * A pidfd ({@code pidfd_open(2)}) for each process of a watched tree, polled: each exit as it happens, with
     * its status for this JVM's children ({@code waitid} without reaping) and, from Linux 6.15, for other
     * processes once their parent has reaped them; new members found by following the tree's children lists at
     * the interval (a member that lived less than the interval is not seen), and each member's name looked at
     * then (a new name is an exec where its address space was replaced, else a rename). Needs no privilege; only
     * for a tree ({@link ProcessEvents#subscribeTree}).
     */
    PIDFD,
    /**
     * Two snapshots of the process table compared at an interval: works everywhere, but sees no process that
     * lived less than the interval and learns no exit status. A process whose address space was replaced (its
     * code, data and stack addresses moved, or it was forked and has exec'd since) is reported as an EXEC; one
     * whose name alone changed, as a RENAME. Where this user may not see another user's addresses, a new name with
     * an address space of the same size is a rename.
     */
    SNAPSHOT_DIFF
}
