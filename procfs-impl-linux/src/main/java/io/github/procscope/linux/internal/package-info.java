/**
 * The native wall: every call into libc that the JDK lacks ({@code kill}, {@code pidfd_open}, {@code poll},
 * {@code waitid}, {@code stat}, {@code statvfs}, {@code openat}/{@code read} for the snapshot) goes through
 * this package, and nothing outside {@code procfs-impl-linux} may call it (the module does not export it).
 * Each class loads its library once and reports an unusable one as a typed exception.
 */
package io.github.procscope.linux.internal;
