package io.github.procscope.planted.api.three;

import io.github.procscope.planted.api.Reader;

/** A planted feature type that uses a type of its root package, which names it back: a cycle through the root. */
public final class Three {
    private Reader reader;

    /** @return the reader, if set */
    public Reader reader() {
        return reader;
    }
}
