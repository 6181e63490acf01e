package io.github.procscope.api.job;

import io.github.procscope.api.core.ProcessKey;
import io.github.procscope.api.signals.PreemptionGuard;
import io.github.procscope.api.signals.Signal;

import java.time.Duration;
import java.util.List;
import java.util.Optional;

/** A running (or ended) job of a {@link JobSupervisor}. Thread-safe. */
public interface Job {
    /** {@return the job's first process: its pid is also its session and process group id} */
    ProcessKey leader();

    /** {@return the spec it was started with} */
    JobSpec spec();

    /**
     * {@return the signals of {@link JobSpec#forwardedSignals()} that are not forwarded, each with why:
     * ignored by this JVM as inherited from its parent (unless {@link JobSpec#ignoredSignalsForwarded()}),
     * used by the JVM itself (USR2, QUIT), or held by another preemption guard}
     */
    default List<PreemptionGuard.Refusal> notForwarded() {
        return List.of();
    }

    /**
     * Passes a signal on to every process of the job, as if the supervisor had received it; for a signal
     * that ends a process by default, the job is then given {@link JobSpec#grace()} before KILL. Recorded in
     * {@link JobReport#forwardedSignals()}. Does nothing once the job has ended.
     *
     * @param signal the signal
     * @throws IllegalArgumentException for KILL or STOP, which are not forwarded
     */
    void forward(Signal signal);

    /**
     * {@return the report, after waiting for the job's end}
     *
     * @throws InterruptedException if the waiting thread is interrupted
     */
    JobReport await() throws InterruptedException;

    /**
     * {@return the report, or empty when the job has not ended in time}
     *
     * @param timeout the longest wait
     * @throws InterruptedException if the waiting thread is interrupted
     */
    Optional<JobReport> await(Duration timeout) throws InterruptedException;
}
