package io.github.procscope.planted.api;

import io.github.procscope.linux.planted.NativeThing;

/**
 * A planted violation of two rules: a public static factory of a service beside the front door, and an API
 * class that uses an implementation class.
 */
public final class SideDoor {
    private SideDoor() {
    }

    /** @return a reader, from a static door */
    public static Reader open() {
        return () -> NativeThing.NAME;
    }

    /** @return an implementation object, which an API type must never touch */
    public static NativeThing thing() {
        return new NativeThing();
    }
}
