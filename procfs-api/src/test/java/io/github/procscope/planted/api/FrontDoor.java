package io.github.procscope.planted.api;

/** The planted API's front door: the one place its readers come from. */
public interface FrontDoor {
    /** @return a reader */
    Reader reader();

    /** @return a feature type: with {@code Three}'s use of {@link Reader}, a cycle through the root package */
    io.github.procscope.planted.api.three.Three three();
}
