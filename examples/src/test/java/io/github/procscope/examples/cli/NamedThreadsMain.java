package io.github.procscope.examples.cli;

import java.util.concurrent.CountDownLatch;

/** A child JVM with four named worker threads; prints {@code ready} once they run, then waits to be ended. */
public final class NamedThreadsMain {
    private NamedThreadsMain() {
    }

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
            }, "worker-" + i);
            t.setDaemon(true);
            t.start();
        }
        started.await();
        System.out.println("ready");
        System.out.flush();
        Thread.sleep(Long.MAX_VALUE);
    }
}
