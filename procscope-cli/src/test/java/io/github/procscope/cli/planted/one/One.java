package io.github.procscope.cli.planted.one;

import io.github.procscope.cli.planted.two.Two;

/** Planted: half of a package cycle. */
public final class One {
    private Two partner;

    /** @return the partner, if set */
    public Two partner() {
        return partner;
    }
}
