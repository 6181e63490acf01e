package io.github.procscope.linux.signals;

import io.github.procscope.api.core.ProcessAccessDeniedException;
import io.github.procscope.api.core.ProcessKey;
import io.github.procscope.linux.sys.ProcessCalls;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Waits for processes to end without spinning. A watched process has a pidfd ({@code pidfd_open(2)}, Linux
 * 5.3 and later) that the stop opened and checked, and one {@code poll(2)} blocks until any of them exits.
 * Where no pidfd can be had (an older kernel, a seccomp filter, no descriptors left), the process is
 * checked in {@code /proc} at intervals that double from the first poll interval up to the longest.
 * Not thread-safe: one per stop.
 */
final class ExitWaiter implements AutoCloseable {

    /** A watched process. */
    static final class Watch {
        final ProcessKey key;
        int fd;

        private Watch(ProcessKey key, int fd) {
            this.key = key;
            this.fd = fd;
        }
    }

    private final ProcessCalls nat;
    private final Identity identity;
    private final long pollInitialNanos;
    private final long pollMaxNanos;
    private long backoffNanos;
    private final List<Watch> opened = new ArrayList<>();

    ExitWaiter(ProcessCalls nat, Identity identity, long pollInitialNanos, long pollMaxNanos) {
        this.nat = nat;
        this.identity = identity;
        this.pollInitialNanos = pollInitialNanos;
        this.pollMaxNanos = pollMaxNanos;
        this.backoffNanos = pollInitialNanos;
    }

    /**
     * Starts watching a process through a pidfd the caller opened and checked (the pidfd names the process the key
     * names); the waiter owns the pidfd from now on and closes it.
     *
     * @return the watch
     */
    Watch adopt(ProcessKey key, int pidfd) {
        Watch w = new Watch(key, pidfd);
        opened.add(w);
        return w;
    }

    /**
     * Starts watching a process without a pidfd: its end is seen by its start time in {@code /proc}, checked at
     * intervals.
     *
     * @return the watch, or null when the process is already gone (or its pid names another process)
     */
    Watch watchWithoutPidfd(ProcessKey key) {
        return alive(key) ? new Watch(key, -1) : null;
    }

    /** Stops watching and releases the pidfd. */
    void closeWatch(Watch w) {
        if (w.fd >= 0) {
            nat.close(w.fd);
            opened.remove(w);
            w.fd = -1;
        }
    }

    /** Restarts the backoff from the first interval (after new processes joined). */
    void resetBackoff() {
        backoffNanos = pollInitialNanos;
    }

    /**
     * Waits until at least one of the processes has ended or the time is up.
     *
     * @param watches      the processes
     * @param timeoutNanos the longest wait
     * @return those that have ended (possibly none)
     */
    List<Watch> await(List<Watch> watches, long timeoutNanos) {
        List<Watch> ended = new ArrayList<>();
        if (watches.isEmpty()) {
            sleep(Math.min(timeoutNanos, backoffNanos));
            return ended;
        }
        // A process may have ended before it could be watched well; check the cheap way first.
        int[] fds = new int[watches.size()];
        Watch[] byFd = new Watch[watches.size()];
        int n = 0;
        boolean anyWithoutFd = false;
        for (Watch w : watches) {
            if (w.fd >= 0) {
                fds[n] = w.fd;
                byFd[n] = w;
                n++;
            } else {
                anyWithoutFd = true;
            }
        }
        long wait = Math.max(0, timeoutNanos);
        if (anyWithoutFd) {
            wait = Math.min(wait, backoffNanos);
            backoffNanos = Math.min(pollMaxNanos, backoffNanos * 2);
        } else {
            // Stay responsive to interruption: never block longer than the longest poll interval.
            wait = Math.min(wait, Math.max(pollMaxNanos, TimeUnit.MILLISECONDS.toNanos(50)));
        }
        if (n > 0) {
            boolean[] ready = new boolean[n];
            int waitMs = (int) Math.min(Integer.MAX_VALUE, TimeUnit.NANOSECONDS.toMillis(wait + 999_999));
            nat.pollReadable(fds, n, waitMs, ready);
            for (int i = 0; i < n; i++) {
                if (ready[i]) {
                    ended.add(byFd[i]);
                }
            }
        } else {
            sleep(wait);
        }
        if (anyWithoutFd) {
            for (Watch w : watches) {
                if (w.fd < 0 && !alive(w.key)) {
                    ended.add(w);
                }
            }
        }
        return ended;
    }

    /** @return whether the process still runs; a process hidden from this user counts as running */
    boolean alive(ProcessKey key) {
        try {
            return identity.isAlive(key);
        } catch (ProcessAccessDeniedException e) {
            return true; // hidden but present (hidepid): its end cannot be seen this way
        }
    }

    private static void sleep(long nanos) {
        if (nanos <= 0) {
            return;
        }
        try {
            TimeUnit.NANOSECONDS.sleep(nanos);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    @Override
    public void close() {
        for (Watch w : new ArrayList<>(opened)) {
            closeWatch(w);
        }
    }
}
