package io.github.procscope.linux.jobs;

import io.github.procscope.api.core.ProcessKey;
import io.github.procscope.api.process.ProcessInfo;

import java.util.List;
import java.util.Set;

/**
 * Where the processes of a job are found. The one implementation today reads a whole process snapshot; a
 * job view fed by process events can take its place without changing the supervisor.
 */
interface JobTreeSampler {
    /**
     * @param leaderPid the job's first process, whose pid is the job's session id
     * @param known     processes already seen as members: they stay members if they left the session
     * @return the job's processes now, zombies included: those of its session, those known, and the
     *         descendants of both
     */
    List<ProcessInfo> members(long leaderPid, Set<ProcessKey> known);
}
