package io.github.procscope.kubernetes.planted.cri;

import io.github.procscope.kubernetes.planted.Names;

/** Planted: a generated stub that uses the hand-written code above it. */
public final class Stub {
    private Names names;

    /** @return the names, if set */
    public Names names() {
        return names;
    }
}
