package io.github.procscope.cli.lab;

import java.util.concurrent.CountDownLatch;

/**
 * Lab helper for step 2: a JVM with four named worker threads ({@code lab-worker-1} .. {@code -4}).
 * Prints its pid when all four run, then waits until it is killed.
 */
public final class LabThreads {
    private LabThreads() {
    }

    /** @param args unused */
    public static void main(String[] args) throws InterruptedException {
        CountDownLatch started = new CountDownLatch(4);
        for (int i = 1; i <= 4; i++) {
            Thread t = new Thread(() -> {
                started.countDown();
                try {
                    Thread.sleep(Long.MAX_VALUE);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }, "lab-worker-" + i);
            t.setDaemon(false);
            t.start();
        }
        started.await();
        System.out.println(ProcessHandle.current().pid());
        System.out.flush();
        Thread.sleep(Long.MAX_VALUE);
    }
}
