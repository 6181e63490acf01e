/**
 * Pure parsers, one per kernel file ({@code …Parser}): bytes in, an API record or a small value type of this
 * package out, no file opened. They throw nothing but {@link io.github.procscope.api.core.ProcfsParseException} on
 * malformed input. They import only the {@code sys} floor (its byte cursor and buffers).
 */
package io.github.procscope.linux.parse;
