/**
 * The Linux implementation of the procscope API. Users reach it through {@link io.github.procscope.api.Procscope};
 * the module exports none of its packages as API. This package holds no class: the code lives on floors, each a
 * subpackage that imports only floors below it (the {@code ArchitectureTest} of this module checks it):
 *
 * <ol>
 *   <li>{@code sys}: the native wall ({@code NativeWall}, its FFM and jnr back ends, the call sets over it) and
 *       the raw reading of kernel files (buffers, byte cursors, the classification of failed reads);</li>
 *   <li>{@code parse}: pure parsers, one per kernel file, bytes in and record out, and their small value types;</li>
 *   <li>{@code proc}: the readers of {@code /proc} and {@code /sys}, each rooted at a directory given to it;</li>
 *   <li>{@code events}, {@code signals}, {@code jobs}, {@code doctor}: what is built on the readers (process
 *       events, signals and stops, the job supervisor, the doctor's checks), none importing another;</li>
 *   <li>{@code platform}: {@code LinuxProcscope}, which assembles the floors, and the service provider.</li>
 * </ol>
 */
package io.github.procscope.linux;
