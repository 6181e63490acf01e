/**
 * The public procscope API: Linux processes as typed, immutable values.
 *
 * <p>Entry point: {@link io.github.procscope.api.Procscope}, the front door:
 * {@link io.github.procscope.api.Procscope#system()} for the live system, or
 * {@link io.github.procscope.api.Procscope#at(java.nio.file.Path, java.nio.file.Path)} for another root
 * (a fixture tree, a host's {@code /proc} mounted into a container). Every value here is a snapshot: it
 * never changes and never re-reads the kernel.
 *
 * <p>This package is the front door and nothing else: {@code Procscope}, and the service-provider interfaces
 * through which implementation modules register with {@link java.util.ServiceLoader}
 * ({@link io.github.procscope.api.PlatformProvider} from {@code procfs-impl-linux},
 * {@link io.github.procscope.api.GpusProvider} from {@code nvml-binding},
 * {@link io.github.procscope.api.KubernetesNamesProvider} from {@code procscope-kubernetes}); users call
 * {@code Procscope}, not these. The feature packages ({@code process}, {@code system}, {@code signals},
 * {@code gpu}, ...) sit below it and the shared vocabulary ({@code core}: identity and errors) below them, so
 * the packages import each other without a cycle.
 *
 * <p>Conventions:
 * <ul>
 *   <li>Units are converted once, where the kernel's text is parsed: sizes are bytes ({@code rssBytes}),
 *       times are {@link java.time.Duration} or {@link java.time.Instant}; pages, kB and clock ticks
 *       never reach this API except where a name says so ({@code startTimeTicks}).</li>
 *   <li>A fact the kernel may withhold (permission, zombie, kernel thread, old kernel) is an
 *       {@code Optional}; its javadoc says why it may be empty. There are no {@code -1} or {@code ""}
 *       sentinels.</li>
 *   <li>Errors are unchecked and typed by cause: {@link io.github.procscope.api.core.NoSuchProcessException},
 *       {@link io.github.procscope.api.core.ProcessAccessDeniedException},
 *       {@link io.github.procscope.api.core.ProcfsParseException} and their siblings under
 *       {@link io.github.procscope.api.core.ProcscopeException}.</li>
 *   <li>{@code null} is never accepted nor returned.</li>
 * </ul>
 */
package io.github.procscope.api;
