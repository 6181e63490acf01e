package io.github.procscope.linux.parse;

import java.time.Instant;

/**
 * The facts of {@code /proc/stat} this package uses.
 *
 * @param bootTime          {@code btime}: when the system booted
 * @param processesCreated  {@code processes}: forks since boot
 * @param processesRunning  {@code procs_running}: runnable tasks
 * @param processesBlocked  {@code procs_blocked}: tasks blocked on I/O
 * @param contextSwitches   {@code ctxt}: context switches since boot
 */
public record KernelStat(Instant bootTime, long processesCreated, long processesRunning, long processesBlocked,
                  long contextSwitches) {
}
