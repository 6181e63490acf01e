package io.github.procscope.api.core;

import java.util.Objects;

/**
 * No implementation of a procscope service was found through {@link java.util.ServiceLoader}: the
 * implementation module is missing from the class path.
 */
public class ImplementationNotFoundException extends ProcscopeException {
    private static final long serialVersionUID = 1L;

    /**
     * Creates the exception.
     * @param service  the service interface that was looked up
     * @param artifact the Maven artifact that provides it, for the message
     */
    public ImplementationNotFoundException(Class<?> service, String artifact) {
        super("no implementation of " + service.getName() + " on the class path: add the dependency "
                + "io.github.procscope:" + Objects.requireNonNull(artifact, "artifact") + " (it registers one through java.util.ServiceLoader)");
    }

    /**
     * Creates the exception.
     * @param service  the service interface that was looked up
     * @param artifact the Maven artifact that provides it, for the message
     * @param cause    the provider that failed to load
     */
    public ImplementationNotFoundException(Class<?> service, String artifact, Throwable cause) {
        super("the implementation of " + service.getName() + " from io.github.procscope:"
                + Objects.requireNonNull(artifact, "artifact")
                + " failed to load: " + cause.getMessage(), cause);
    }
}
