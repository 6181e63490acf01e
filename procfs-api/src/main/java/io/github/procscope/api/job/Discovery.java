package io.github.procscope.api.job;

/** How a {@link JobTree} finds the processes of its tree on a refresh. */
public enum Discovery {
    /**
     * The kernel's per-thread list of children ({@code /proc/PID/task/TID/children}, Linux 3.5+ built with
     * {@code CONFIG_PROC_CHILDREN}): a refresh reads only the files of the tree's own processes.
     */
    CHILDREN_FILES,
    /**
     * A snapshot of every process on each refresh, where the kernel has no children files: correct, but its
     * cost grows with the machine, not with the tree.
     */
    FULL_SNAPSHOT
}
