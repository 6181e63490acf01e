package io.github.procscope.api.events;

/** Why a process ended, where more is known than its status. */
public enum ExitCause {
    /** The kernel's OOM killer ended it with SIGKILL; the event's evidence says how that is known. */
    OOM_KILLED
}
