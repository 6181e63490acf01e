/**
 * The Linux job supervisor: jobs spawned in a session of their own, this JVM their child subreaper, their
 * processes sampled, signals forwarded, stragglers ended, and a report. Its native calls (spawning, reaping,
 * the subreaper flag) go through {@code io.github.procscope.linux.sys.ProcessCalls}, on the back end the native
 * wall chose.
 */
package io.github.procscope.linux.jobs;
