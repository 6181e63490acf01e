package io.github.procscope.cli.planted.lab;

import io.github.procscope.cli.planted.Command;

/** Planted: a lab scenario that uses a command of the root package above it. */
public final class Scenario {
    /** @return a command */
    public Command command() {
        return new Command();
    }
}
