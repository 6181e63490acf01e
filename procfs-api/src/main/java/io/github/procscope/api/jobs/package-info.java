/**
 * Supervised jobs: a command launched in its own session, watched while it runs, its signals forwarded,
 * every process of it ended at the end, and a {@link io.github.procscope.api.jobs.JobReport} that explains
 * how it ended. Start at {@link io.github.procscope.api.Procscope#jobs()}.
 */
package io.github.procscope.api.jobs;
