package io.github.procscope.kubernetes.planted;

import io.github.procscope.kubernetes.planted.cri.Stub;

/** Planted: the hand-written side of a cycle with a generated stub, naming another implementation module. */
public final class Names {
    private Stub stub;

    /** @return the stub, if set */
    public Stub stub() {
        return stub;
    }

    /** @return a name from the Linux implementation, which this module must never use */
    public String metrics() {
        return io.github.procscope.linux.platform.LinuxPlatform.class.getName();
    }
}
