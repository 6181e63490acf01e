/**
 * The machine as {@code df}, {@code du}, {@code free}, {@code iostat} and {@code uptime} show it:
 * {@link io.github.procscope.api.system.SystemResources} ({@code Procscope.resources()}) reads memory and its
 * cgroup limits, mounted file systems and their headroom, directory sizes, disk statistics and the
 * {@link io.github.procscope.api.system.LoadAverage}. The values it returns live in
 * {@link io.github.procscope.api.memory} and {@link io.github.procscope.api.disk}.
 */
package io.github.procscope.api.system;
