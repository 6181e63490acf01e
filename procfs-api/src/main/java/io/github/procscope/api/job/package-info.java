/**
 * A job's process tree as one value, cheap to refresh: {@link io.github.procscope.api.job.JobTree}, opened
 * with {@link io.github.procscope.api.Procscope#jobTree}, yields a
 * {@link io.github.procscope.api.job.JobSample} per refresh — the processes of a training run (launcher,
 * ranks, DataLoader workers), each one's RSS, PSS, CPU, threads, open files and GPU memory, their totals,
 * and who joined or left since the last refresh.
 */
package io.github.procscope.api.job;
