/**
 * The Linux job supervisor: jobs spawned in a session of their own, this JVM their child subreaper, their
 * processes sampled, signals forwarded, stragglers ended, and a report.
 */
package io.github.procscope.linux.jobs;
