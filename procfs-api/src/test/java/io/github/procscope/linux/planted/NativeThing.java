package io.github.procscope.linux.planted;

/** Stands for an implementation class that the planted API class uses against the rules. */
public final class NativeThing {
    /** A name. */
    public static final String NAME = "native";
}
