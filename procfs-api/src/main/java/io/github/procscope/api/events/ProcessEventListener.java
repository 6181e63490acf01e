package io.github.procscope.api.events;

/**
 * Receives events on the subscription's own delivery thread, one at a time, in the order the kernel reported
 * them. A slow listener never slows the kernel reader: events it cannot take in time are dropped and counted
 * ({@link EventSubscription#dropped()}).
 */
@FunctionalInterface
public interface ProcessEventListener {
    /**
     * Receives one event.
     *
     * @param event the event
     */
    void onEvent(ProcessEvent event);

    /**
     * Called when events were lost before they reached the subscription (the kernel's socket buffer overran);
     * a resynchronising snapshot has been taken, so processes that appeared or ended meanwhile are known again.
     *
     * @param lostSoFar how many losses (overruns) so far
     */
    default void onLoss(long lostSoFar) {
    }
}
