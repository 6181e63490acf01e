package io.github.procscope.cli;

import io.github.procscope.api.process.ProcessState;
import io.github.procscope.api.process.ThreadInfo;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.Callable;

/** {@code procscope threads PID}: the tasks of a process, from {@code /proc/PID/task}. */
@Command(name = "threads", mixinStandardHelpOptions = true,
        description = {"List the threads of a process.",
                "ps shows a process as one line; /proc/PID/task holds each of its threads (tasks), with "
                        + "its own name and state."},
        footer = {"", "Example:", "  procscope threads 4121"})
final class ThreadsCommand implements Callable<Integer> {
    @Mixin
    ProcessTarget target;

    /**
     * A thread as {@code threads --json} writes it.
     *
     * @param tid     its id
     * @param name    its name ({@code comm})
     * @param state   its state
     * @param cpuTime the CPU time it used, user and system, written as {@code cpuTimeSeconds}
     */
    record Row(long tid, String name, ProcessState state, Duration cpuTime) {
    }

    @Override
    public Integer call() {
        Context ctx = target.context();
        long pid = target.pid();
        List<ThreadInfo> threads = ctx.procfs().threads(pid);
        if (ctx.json()) {
            ctx.printJson(Json.of(threads.stream().map(t -> new Row(t.tid(), t.name(), t.state(), t.stat().cpuTime()))
                    .toList()));
            return ProcscopeCli.OK;
        }
        Table table = new Table().right("TID").left("STATE").right("CPU").left("NAME");
        for (ThreadInfo t : threads) {
            table.row(t.tid(), t.state().letter(), Units.elapsed(t.stat().cpuTime()), t.name());
        }
        table.print(ctx.out(), ctx.width());
        return ProcscopeCli.OK;
    }
}
