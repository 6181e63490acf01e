package io.github.procscope.api.system;

/**
 * The system load, as {@code uptime} and {@code top} show it, from {@code /proc/loadavg}
 * ({@code "0.20 0.18 0.12 1/80 11206"}).
 *
 * <p>How to read it: a load average is an exponentially damped moving average of the number of tasks
 * that are runnable (running or waiting for a CPU) <em>or</em> in uninterruptible sleep (state D,
 * usually waiting for a disk or a network file system). Compare it with the number of CPUs: a load
 * steadily above it means tasks wait; a high load with idle CPUs points at tasks stuck in D state, that is
 * at I/O. The kernel recomputes the averages every 5 seconds and prints them with two decimals.
 *
 * @param oneMinute      the average over the last minute (first field)
 * @param fiveMinutes    the average over the last 5 minutes (second field)
 * @param fifteenMinutes the average over the last 15 minutes (third field)
 * @param runnableTasks  tasks (threads) runnable at the moment of reading: the number before the slash
 * @param totalTasks     tasks (threads) that exist: the number after the slash
 * @param lastPid        the last pid the kernel handed out in the reader's pid namespace (fifth field)
 */
public record LoadAverage(double oneMinute, double fiveMinutes, double fifteenMinutes, int runnableTasks,
                          int totalTasks, long lastPid) {
    /**
     * Checks the figures.
     *
     * @throws IllegalArgumentException if a figure is negative or not a number
     */
    public LoadAverage {
        for (double d : new double[] {oneMinute, fiveMinutes, fifteenMinutes}) {
            if (!(d >= 0) || Double.isInfinite(d)) {
                throw new IllegalArgumentException("a load average is a finite number of 0 or more, not " + d);
            }
        }
        if (runnableTasks < 0 || totalTasks < 0 || lastPid < 0) {
            throw new IllegalArgumentException("task counts and the last pid must not be negative: " + runnableTasks
                    + "/" + totalTasks + ", " + lastPid);
        }
    }
}
