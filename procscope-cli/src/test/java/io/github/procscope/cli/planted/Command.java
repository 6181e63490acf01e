package io.github.procscope.cli.planted;

/** Planted: a command in the root package, which a leaf must not use. */
public final class Command {
}
