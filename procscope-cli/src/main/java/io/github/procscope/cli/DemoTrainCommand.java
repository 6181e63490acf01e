package io.github.procscope.cli;

import io.github.procscope.cli.demo.TrainingLoopDemo;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParentCommand;

import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.Callable;

/** {@code procscope demo-train}: the training loop that checkpoints when it is preempted. */
@Command(name = "demo-train", mixinStandardHelpOptions = true, sortOptions = false,
        description = {"Run a training loop that checkpoints when it is preempted.",
                "It prints 'step K' after each simulated step. On TERM (or INT, or USR1) it finishes the "
                        + "step it is in, writes its checkpoint atomically (a temporary file, then a rename) and "
                        + "exits with 143 (128 + TERM's 15). Started again with the same checkpoint, it prints "
                        + "'resumed after step K' and carries on.",
                "Try it: start it, then run 'procscope stop PID' from another terminal."},
        footer = {"", "Example:", "  procscope demo-train --checkpoint run.ckpt --steps 100 --step-ms 200"})
final class DemoTrainCommand implements Callable<Integer> {
    @ParentCommand
    ProcscopeCli root;

    @Option(names = "--checkpoint", required = true, paramLabel = "FILE",
            description = "The checkpoint: read at start if it exists, written on a stop and at the end.")
    Path checkpoint;

    @Option(names = "--steps", required = true, paramLabel = "N", description = "How many steps the whole run has.")
    int steps;

    @Option(names = "--step-ms", required = true, paramLabel = "M", description = "How long one step takes, in ms.")
    int stepMs;

    @Option(names = "--checkpoint-every", paramLabel = "K", description = "Also save after every K steps (default: 0, never).")
    int every;

    @Override
    public Integer call() {
        Context ctx = root.context();
        TrainingLoopDemo.Options options = new TrainingLoopDemo.Options(checkpoint, steps, Duration.ofMillis(stepMs), every);
        return TrainingLoopDemo.run(options, ctx.out(), ctx.err());
    }
}
