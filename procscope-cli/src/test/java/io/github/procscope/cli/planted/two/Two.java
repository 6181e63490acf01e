package io.github.procscope.cli.planted.two;

import io.github.procscope.cli.planted.one.One;

/** Planted: the other half of a package cycle, and a class naming the implementation module. */
public final class Two {
    private One partner;

    /** @return the partner, if set */
    public One partner() {
        return partner;
    }

    /** @return the implementation's name for its provider, which the tool must never use */
    public String provider() {
        return io.github.procscope.linux.platform.LinuxPlatform.class.getName();
    }
}
