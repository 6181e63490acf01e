/**
 * Process events on Linux: {@link io.github.procscope.linux.events.LinuxProcessEvents} (starts, exits, execs
 * and OOM kills from the proc connector, pidfds or snapshot differences), built on the readers of {@code proc}.
 */
package io.github.procscope.linux.events;
