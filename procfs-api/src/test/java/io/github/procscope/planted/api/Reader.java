package io.github.procscope.planted.api;

/** A planted service interface, handed out by a side door ({@link SideDoor}). */
public interface Reader {
    /** @return something read */
    String read();
}
