/**
 * Service-provider interfaces: how implementation modules register themselves with
 * {@link java.util.ServiceLoader}. Users do not call these; they call the static entry points such as
 * {@link io.github.procscope.api.ProcessTable#system()}.
 */
package io.github.procscope.api.spi;
