/**
 * Process lifecycle events: FORK, EXEC, RENAME and EXIT of every process, as they happen, from the best source the
 * machine allows — the kernel's process connector (netlink), else snapshot diffing at an interval — with the
 * source, and why a better one is not used, in plain view. See {@link io.github.procscope.api.events.ProcessEvents}.
 */
package io.github.procscope.api.events;
