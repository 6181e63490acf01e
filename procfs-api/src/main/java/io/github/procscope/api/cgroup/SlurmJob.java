package io.github.procscope.api.cgroup;

import java.util.Objects;
import java.util.Optional;

/**
 * A Slurm job (and step) named by a cgroup path: {@code /slurm/uid_U/job_J/step_S} (cgroup v1) or
 * {@code /system.slice/slurmstepd.scope/job_J/step_S} (cgroup v2).
 *
 * @param jobId the job id, positive
 * @param step  the step: a number ({@code 0}), or {@code batch}, {@code extern} or {@code interactive}; empty
 *              for a process in the job's own cgroup, outside any step
 */
public record SlurmJob(long jobId, Optional<String> step) {
    /**
     * Checks the components.
     *
     * @throws IllegalArgumentException if the job id is not positive or the step is blank
     */
    public SlurmJob {
        if (jobId <= 0) {
            throw new IllegalArgumentException("a Slurm job id is positive: " + jobId);
        }
        Objects.requireNonNull(step, "step");
        if (step.isPresent() && step.get().isBlank()) {
            throw new IllegalArgumentException("a Slurm step name must not be blank");
        }
    }
}
