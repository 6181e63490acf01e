package io.github.procscope.linux;

import io.github.procscope.api.ProcessSnapshot;
import io.github.procscope.api.ProcessTree;
import io.github.procscope.api.diagnose.DoctorOptions;

/**
 * What the checks of one diagnosis share: two snapshots (with status and command line) taken a sample
 * window apart, and the options.
 *
 * @param before  the snapshot at the start of the window
 * @param after   the snapshot at its end
 * @param options thresholds
 */
record Examination(ProcessSnapshot before, ProcessSnapshot after, DoctorOptions options) {
    ProcessTree tree() {
        return after.tree();
    }
}
