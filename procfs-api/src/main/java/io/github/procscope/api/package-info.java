/**
 * The public procscope API: Linux processes as typed, immutable values.
 *
 * <p>Entry point: {@link io.github.procscope.api.Procscope}, the front door:
 * {@link io.github.procscope.api.Procscope#system()} for the live system, or
 * {@link io.github.procscope.api.Procscope#at(java.nio.file.Path, java.nio.file.Path)} for another root
 * (a fixture tree, a host's {@code /proc} mounted into a container). Every value here is a snapshot: it
 * never changes and never re-reads the kernel.
 *
 * <p>Conventions:
 * <ul>
 *   <li>Units are converted once, where the kernel's text is parsed: sizes are bytes ({@code rssBytes}),
 *       times are {@link java.time.Duration} or {@link java.time.Instant}; pages, kB and clock ticks
 *       never reach this API except where a name says so ({@code startTimeTicks}).</li>
 *   <li>A fact the kernel may withhold (permission, zombie, kernel thread, old kernel) is an
 *       {@code Optional}; its javadoc says why it may be empty. There are no {@code -1} or {@code ""}
 *       sentinels.</li>
 *   <li>Errors are unchecked and typed by cause: {@link io.github.procscope.api.NoSuchProcessException},
 *       {@link io.github.procscope.api.ProcessAccessDeniedException},
 *       {@link io.github.procscope.api.ProcfsParseException} and their siblings under
 *       {@link io.github.procscope.api.ProcscopeException}.</li>
 *   <li>{@code null} is never accepted nor returned.</li>
 * </ul>
 */
package io.github.procscope.api;
