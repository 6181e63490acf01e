package io.github.procscope.api.diagnose;

/** How much a finding matters. */
public enum Severity {
    /** Worth knowing; nothing is wrong yet. */
    INFO,
    /** Something is wrong or about to go wrong; a person should look. */
    WARNING,
    /** Work is failing now (a full disk, an OOM kill). */
    CRITICAL;

    /**
     * {@return whether this is at least as severe as {@code other}}
     *
     * @param other another severity
     */
    public boolean atLeast(Severity other) {
        return compareTo(other) >= 0;
    }
}
