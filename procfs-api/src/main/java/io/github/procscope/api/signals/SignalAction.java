package io.github.procscope.api.signals;

/** What the kernel does with a signal that a process neither ignores nor catches (see {@code signal(7)}). */
public enum SignalAction {
    /** The process is terminated. */
    TERMINATE,
    /** The process is terminated and dumps core (when core dumps are enabled). */
    CORE,
    /** The signal is discarded. */
    IGNORE,
    /** The process is stopped. */
    STOP,
    /** A stopped process continues. */
    CONTINUE
}
