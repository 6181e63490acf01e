package io.github.procscope.cli;

import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * What every command about one process starts with, as a picocli mixin: the {@code PID} argument (checked by
 * {@link PidConverter}) and the tool's context, with its global options, from the command's parent.
 */
final class ProcessTarget {
    @Spec(Spec.Target.MIXEE)
    CommandSpec command;

    @Parameters(index = "0", paramLabel = "PID", converter = PidConverter.class, description = "The process.")
    long pid;

    /** @return the process the command line names */
    long pid() {
        return pid;
    }

    /** @return the tool's context: the global options and the library */
    Context context() {
        return ((ProcscopeCli) command.parent().userObject()).context();
    }
}
