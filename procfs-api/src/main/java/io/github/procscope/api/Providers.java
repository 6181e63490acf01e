package io.github.procscope.api;

import io.github.procscope.api.core.ImplementationNotFoundException;

import java.util.Iterator;
import java.util.Objects;
import java.util.ServiceConfigurationError;
import java.util.ServiceLoader;

/** Finds the implementation of a service interface through {@link ServiceLoader}. */
final class Providers {
    private Providers() {
    }

    /**
     * {@return the first implementation found with the class loader of {@code service}, else the thread's
     * context class loader}
     *
     * @param <T>      the service type
     * @param service  the service interface
     * @param artifact the Maven artifact that provides an implementation, named in the error
     * @throws ImplementationNotFoundException if there is none
     */
    static <T> T first(Class<T> service, String artifact) {
        Objects.requireNonNull(service, "service");
        Objects.requireNonNull(artifact, "artifact");
        for (ClassLoader loader : new ClassLoader[] {service.getClassLoader(),
                Thread.currentThread().getContextClassLoader()}) {
            try {
                Iterator<T> it = ServiceLoader.load(service, loader).iterator();
                if (it.hasNext()) {
                    return it.next();
                }
            } catch (ServiceConfigurationError e) {
                throw new ImplementationNotFoundException(service, artifact, e);
            }
        }
        throw new ImplementationNotFoundException(service, artifact);
    }
}
