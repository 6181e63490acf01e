package io.github.procscope.api.diagnose;

import java.util.List;
import java.util.Objects;

/**
 * One diagnosis: what is wrong, which processes are involved, the numbers that show it, and what to do.
 *
 * @param severity how much it matters
 * @param pids     the processes involved, ascending (empty when none is: a full disk)
 * @param summary  one line for a person
 * @param evidence the facts read, typed; its {@link Evidence#kind()} is the finding's {@link #kind()}
 * @param advice   what to do about it
 */
public record Finding(Severity severity, List<Long> pids, String summary, Evidence evidence, String advice) {

    /** Checks components and copies the pids, sorted and distinct. */
    public Finding {
        Objects.requireNonNull(severity, "severity");
        pids = pids.stream().sorted().distinct().toList();
        Objects.requireNonNull(summary, "summary");
        Objects.requireNonNull(evidence, "evidence");
        Objects.requireNonNull(advice, "advice");
    }

    /** {@return what the finding is about: its evidence's kind} */
    public FindingKind kind() {
        return evidence.kind();
    }
}
