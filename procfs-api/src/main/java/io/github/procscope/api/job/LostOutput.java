package io.github.procscope.api.job;

import java.time.Instant;
import java.util.Objects;

/**
 * Output of a job that could not be written to its file ({@link JobSpec#output()}): a full disk, a quota, a
 * file system gone read-only. The job itself never saw the failure (it wrote into a pipe); this says what the
 * file is missing.
 *
 * @param bytes  how many bytes the job wrote that are not in the file
 * @param since  when the first of them could not be written
 * @param reason why, as the operating system said it ("No space left on device")
 */
public record LostOutput(long bytes, Instant since, String reason) {
    /** Checks the components. */
    public LostOutput {
        if (bytes <= 0) {
            throw new IllegalArgumentException("lost output is 1 byte or more, not " + bytes);
        }
        Objects.requireNonNull(since, "since");
        Objects.requireNonNull(reason, "reason");
    }
}
