package io.github.procscope.linux.jobs;

import io.github.procscope.api.Procscope;
import io.github.procscope.api.job.JobReport;
import io.github.procscope.api.job.JobSpec;

import java.time.Duration;
import java.util.List;

/**
 * Runs one short job through the API, as a library consumer does, and prints its shell status:
 * what {@link JobsLoadNoJnrIT} starts in a JVM of its own.
 */
public final class JobProbe {
    private JobProbe() {
    }

    /** @param args the job's command */
    public static void main(String[] args) throws Exception {
        JobReport r = Procscope.system().jobs().start(JobSpec.of(List.of(args)).withForwardedSignals(List.of()))
                .await(Duration.ofSeconds(60)).orElseThrow(() -> new AssertionError("the job did not end"));
        System.out.println("status " + r.exit().status().shellStatus());
    }
}
