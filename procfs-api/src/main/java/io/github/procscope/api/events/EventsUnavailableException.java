package io.github.procscope.api.events;

import io.github.procscope.api.core.ProcscopeException;

/** A source of process events that cannot be used here; the message says why. */
public class EventsUnavailableException extends ProcscopeException {
    private static final long serialVersionUID = 1L;

    /**
     * Creates the exception.
     *
     * @param message why
     */
    public EventsUnavailableException(String message) {
        super(message);
    }
}
