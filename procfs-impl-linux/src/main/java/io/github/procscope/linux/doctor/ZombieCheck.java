package io.github.procscope.linux.doctor;

import io.github.procscope.api.diagnose.Evidence;
import io.github.procscope.api.diagnose.Finding;
import io.github.procscope.api.diagnose.Severity;
import io.github.procscope.api.process.ProcessInfo;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Zombies that stayed zombies for the whole sample window, grouped by the parent that does not reap
 * them. (A child is briefly a zombie between its exit and its parent's {@code wait}: that is normal.)
 */
final class ZombieCheck implements DoctorCheck {
    @Override
    public String name() {
        return "zombies";
    }

    @Override
    public List<Finding> run(Examination e) {
        List<Finding> out = new ArrayList<>();
        for (Map.Entry<Long, List<ProcessInfo>> group : e.tree().zombiesByParent().entrySet()) {
            List<ProcessInfo> lasting = group.getValue().stream()
                    .filter(z -> e.before().find(z.key()).map(b -> b.state() == z.state()).orElse(false))
                    .toList();
            if (lasting.isEmpty()) {
                continue;
            }
            long parentPid = group.getKey();
            String parentComm = e.after().find(parentPid).map(ProcessInfo::comm).orElse("?");
            List<Long> zombiePids = lasting.stream().map(ProcessInfo::pid).toList();
            List<Long> pids = new ArrayList<>(zombiePids);
            pids.add(parentPid);
            Evidence ev = new Evidence.Zombies(parentPid, parentComm, zombiePids,
                    lasting.stream().map(ProcessInfo::comm).distinct().toList());
            String advice = parentPid == 1
                    ? "PID 1 adopted them and does not reap: it is not an init. Run the container with an init "
                    + "(docker run --init, tini, dumb-init) so that adopted children are reaped."
                    : "A zombie has already exited: killing it does nothing. The parent must call wait() on "
                    + "its children (fix the code that forks them); or end the parent (pid " + parentPid
                    + "), and its zombies are adopted and reaped by init.";
            out.add(new Finding(Severity.WARNING, pids,
                    zombiePids.size() + (zombiePids.size() == 1 ? " zombie" : " zombies") + " of pid " + parentPid
                            + " (" + parentComm + ") not reaped", ev, advice));
        }
        return out;
    }
}
