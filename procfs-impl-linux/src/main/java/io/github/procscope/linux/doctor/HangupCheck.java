package io.github.procscope.linux.doctor;

import io.github.procscope.api.diagnose.Evidence;
import io.github.procscope.api.diagnose.Finding;
import io.github.procscope.api.diagnose.Severity;
import io.github.procscope.api.process.Facet;
import io.github.procscope.api.process.ProcessInfo;
import io.github.procscope.api.process.ProcessTree;
import io.github.procscope.api.signals.SignalMasks;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * Processes that will die when their terminal hangs up (an SSH connection drops): they have a
 * controlling terminal, neither ignore nor catch SIGHUP, and run outside tmux and screen, whose
 * terminals outlive the connection. Shells are not reported (they end with their terminal by design);
 * one finding per session.
 */
final class HangupCheck implements DoctorCheck {
    private static final Set<Facet> STATUS = Set.of(Facet.STATUS);
    private static final Set<String> SHELLS = Set.of("bash", "sh", "dash", "zsh", "fish", "ksh", "mksh", "tcsh",
            "csh", "ash", "busybox", "login", "sshd", "su", "sudo");

    @Override
    public String name() {
        return "hang-up";
    }

    @Override
    public List<Finding> run(Examination e) {
        ProcessTree tree = e.tree();
        Map<Long, List<ProcessInfo>> bySession = new TreeMap<>();
        for (ProcessInfo p : e.after().processes()) {
            if (p.ttyNr() == 0 || p.isKernelThread() || SHELLS.contains(p.comm())
                    || p.elapsed().compareTo(e.options().hangupMinAge()) < 0) {
                continue;
            }
            if (underMultiplexer(tree, p)) {
                continue;
            }
            SignalMasks masks = e.reread(p, STATUS).flatMap(ProcessInfo::signalMasks).orElse(null);
            if (masks == null || masks.survivesHangup()) {
                continue; // ended since, status unreadable, or it survives a hang-up
            }
            bySession.computeIfAbsent(p.sid(), k -> new ArrayList<>()).add(p);
        }
        List<Finding> out = new ArrayList<>();
        bySession.forEach((sid, procs) -> {
            ProcessInfo first = procs.get(0);
            Evidence.HangupVulnerable ev = new Evidence.HangupVulnerable(sid,
                    first.tty().orElse(Integer.toString(first.ttyNr())),
                    procs.stream().map(ProcessInfo::pid).toList(), procs.stream().map(ProcessInfo::comm).toList(),
                    procs.stream().mapToLong(p -> p.elapsed().toMillis()).max().orElse(0));
            out.add(new Finding(Severity.WARNING,
                    procs.stream().map(ProcessInfo::pid).toList(),
                    procs.size() + " process(es) on terminal " + ev.tty() + " (" + first.comm()
                            + (procs.size() > 1 ? ", ..." : "") + ") will get SIGHUP and die if the session drops",
                    ev, "Run long jobs inside tmux or screen (tmux new -s run), or with nohup (HUP ignored, output "
                    + "to nohup.out), or make the program handle SIGHUP. A dropped SSH connection sends HUP "
                    + "to everything on its terminal."));
        });
        return out;
    }

    private static boolean underMultiplexer(ProcessTree tree, ProcessInfo p) {
        for (ProcessInfo a : tree.ancestors(p.pid())) {
            String c = a.comm();
            if (c.startsWith("tmux") || c.equalsIgnoreCase("screen") || c.startsWith("zellij") || c.equals("mosh-server")) {
                return true;
            }
        }
        return false;
    }
}
