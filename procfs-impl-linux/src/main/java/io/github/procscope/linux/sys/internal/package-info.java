/**
 * The jnr back end's bindings: the libc calls the JDK lacks ({@code kill}, {@code pidfd_open},
 * {@code pidfd_send_signal}, {@code poll}, {@code waitid}, {@code stat}, {@code statvfs}, {@code openat}/{@code
 * read} for the snapshot) as jnr-posix and jnr-ffi bind them on JDK 17 to 21: {@code NativeAccess}
 * (processes), {@code NativeFs} (files), {@code NativeLibc} and {@code WallLibC} (the jnr-ffi interfaces),
 * {@code JffiStub} (jffi's native stub, from a private cache, before jnr-ffi loads). The contract they share
 * with the FFM back end of JDK 22+ ({@code NativeWall}, {@code ProcessCalls}, {@code FsCalls}) lives in
 * {@code io.github.procscope.linux.sys}. The module exports this package only because jnr-ffi's generated stubs
 * must see the interfaces they implement; nothing in it is API. Each class loads its library once and reports
 * an unusable one as a typed exception.
 */
package io.github.procscope.linux.sys.internal;
