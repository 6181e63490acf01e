package io.github.procscope.linux.doctor;

import io.github.procscope.api.diagnose.Finding;

import java.util.List;

/** One entry of the diagnosis map: a small, single-purpose look at one kind of problem. */
interface DoctorCheck {
    /** @return a short name for {@link io.github.procscope.api.diagnose.Diagnosis#skipped()} */
    String name();

    /**
     * @param e what the examination gathered
     * @return the findings; a check that cannot run here throws a {@link io.github.procscope.api.core.ProcscopeException}
     *         saying why, and is listed as skipped
     */
    List<Finding> run(Examination e);
}
