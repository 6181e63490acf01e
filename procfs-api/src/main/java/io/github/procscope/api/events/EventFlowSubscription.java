package io.github.procscope.api.events;

import java.util.concurrent.Flow;

/**
 * The {@link Flow.Subscription} that {@link ProcessEvents#publisher} hands to a subscriber's
 * {@code onSubscribe}: cast it to this type to see the source, the fallback reason and what was dropped.
 * Events beyond the subscriber's demand wait in a bounded buffer; when it is full the newest event is dropped
 * and counted, so a slow subscriber never slows the kernel reader. {@link #close()} is {@link #cancel()}.
 */
public interface EventFlowSubscription extends Flow.Subscription, EventSubscription {
    /**
     * {@return events dropped so far: those the buffer had no room for (the subscriber asked for too few),
     * and those the subscription's own queue dropped}
     */
    @Override
    long dropped();
}
