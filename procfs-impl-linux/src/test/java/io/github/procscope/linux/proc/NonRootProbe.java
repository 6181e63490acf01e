package io.github.procscope.linux.proc;

import io.github.procscope.api.core.NoSuchProcessException;
import io.github.procscope.api.core.ProcessAccessDeniedException;
import io.github.procscope.api.process.Facet;
import io.github.procscope.api.process.ProcessInfo;
import io.github.procscope.api.process.ProcessSnapshot;

import java.nio.file.Path;
import java.util.EnumSet;
import java.util.Map;
import java.util.TreeMap;

/**
 * Run by {@link NonRootIT} in a child JVM as an unprivileged user. Prints {@code key=value} lines;
 * any exception other than the two typed outcomes is printed as {@code crash=...} and exits 1.
 */
public final class NonRootProbe {
    private NonRootProbe() {
    }

    public static void main(String[] args) {
        try {
            LinuxProcfs live = LinuxProcfs.at(Path.of("/proc"));
            ProcessSnapshot s = live.snapshot(EnumSet.allOf(Facet.class));
            System.out.println("count=" + s.size());
            System.out.println("keys=" + s.processes().stream().map(p -> p.key().pid() + ":" + p.key().startTimeTicks())
                    .collect(java.util.stream.Collectors.joining(",")));
            long me = ProcessHandle.current().pid();
            ProcessInfo self = s.get(me);
            System.out.println("selfUid=" + self.uid());
            System.out.println("selfUser=" + self.user().orElse("?"));
            System.out.println("withStatus=" + s.processes().stream().filter(p -> p.status().isPresent()).count());
            System.out.println("withCmdline=" + s.processes().stream().filter(p -> p.cmdline().isPresent()).count());
            System.out.println("pid1Uid=" + s.get(1).uid());
            Map<String, Integer> outcomes = new TreeMap<>();
            for (ProcessInfo p : s.processes()) {
                outcome(outcomes, "status", () -> live.status(p.pid()));
                outcome(outcomes, "cmdline", () -> live.cmdline(p.pid()));
                outcome(outcomes, "threads", () -> live.threads(p.pid(), EnumSet.of(Facet.STATUS)));
            }
            System.out.println("outcomes=" + outcomes);

            LinuxProcfs fixture = LinuxProcfs.builder(Path.of(args[0])).clockTicksPerSecond(100).pageSizeBytes(4096).build();
            ProcessInfo locked = fixture.snapshot(EnumSet.allOf(Facet.class)).get(500);
            System.out.println("lockedStatusEmpty=" + locked.status().isEmpty());
            System.out.println("lockedCmdlineEmpty=" + locked.cmdline().isEmpty());
            System.out.println("lockedComm=" + locked.comm());
            try {
                fixture.status(500);
                System.out.println("lockedStatus=read");
            } catch (ProcessAccessDeniedException e) {
                System.out.println("lockedStatus=denied pid=" + e.pid() + " file=" + e.file().getFileName());
            }
        } catch (RuntimeException e) {
            System.out.println("crash=" + e);
            e.printStackTrace(System.out);
            System.exit(1);
        }
    }

    private static void outcome(Map<String, Integer> outcomes, String what, Runnable call) {
        String result;
        try {
            call.run();
            result = "ok";
        } catch (NoSuchProcessException e) {
            result = "gone";
        } catch (ProcessAccessDeniedException e) {
            result = "denied";
        }
        outcomes.merge(what + ":" + result, 1, Integer::sum);
    }
}
