package io.github.procscope.api.events;

/** What happened to a process. */
public enum EventType {
    /** A new process was created ({@code fork}, {@code clone} without {@code CLONE_THREAD}). */
    FORK,
    /** A process replaced its program ({@code execve}). */
    EXEC,
    /** A process ended. */
    EXIT,
    /**
     * A process changed its command name without an exec: {@code prctl(PR_SET_NAME)} by its main thread, or a write
     * to {@code /proc/PID/comm} (the kernel's {@code PROC_EVENT_COMM}); {@link ProcessEvent#comm()} holds the new
     * name. Kernel threads and daemons rename themselves; an exec is reported as {@link #EXEC}, never as this.
     */
    RENAME
}
