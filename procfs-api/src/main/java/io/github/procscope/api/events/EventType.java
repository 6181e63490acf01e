package io.github.procscope.api.events;

/** What happened to a process. */
public enum EventType {
    /** A new process was created ({@code fork}, {@code clone} without {@code CLONE_THREAD}). */
    FORK,
    /** A process replaced its program ({@code execve}). */
    EXEC,
    /** A process ended. */
    EXIT
}
