package io.github.procscope.cli;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.github.procscope.api.ThreadInfo;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;

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

    @Override
    public Integer call() {
        Context ctx = target.context();
        long pid = target.pid();
        List<ThreadInfo> threads = ctx.procfs().threads(pid);
        if (ctx.json()) {
            ArrayNode arr = Context.mapper().createArrayNode();
            for (ThreadInfo t : threads) {
                ObjectNode o = arr.addObject();
                o.put("tid", t.tid());
                o.put("name", t.name());
                o.put("state", t.state().name());
                Json.put(o, "cpuTimeSeconds", t.stat().cpuTime());
            }
            ctx.printJson(arr);
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
