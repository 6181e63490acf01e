package io.github.procscope.planted.api;

/** The planted API's front door: the one place its readers come from. */
public interface FrontDoor {
    /** @return a reader */
    Reader reader();
}
