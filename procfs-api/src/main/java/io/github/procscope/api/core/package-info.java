/**
 * The vocabulary every other package of the API builds on: a process's identity
 * ({@link io.github.procscope.api.core.ProcessKey}: pid and start time), pid and device-number values, and
 * the typed errors, all under {@link io.github.procscope.api.core.ProcscopeException}
 * ({@link io.github.procscope.api.core.NoSuchProcessException},
 * {@link io.github.procscope.api.core.ProcessAccessDeniedException},
 * {@link io.github.procscope.api.core.ProcfsParseException} and their siblings).
 *
 * <p>This package names no other package of the API.
 */
package io.github.procscope.api.core;
