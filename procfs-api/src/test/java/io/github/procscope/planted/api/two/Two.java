package io.github.procscope.planted.api.two;

import io.github.procscope.planted.api.one.One;

/** A planted violation: {@code two} and {@code one} import each other (a package cycle). */
public final class Two {
    private One partner;

    /** @return the partner, if set */
    public One partner() {
        return partner;
    }
}
