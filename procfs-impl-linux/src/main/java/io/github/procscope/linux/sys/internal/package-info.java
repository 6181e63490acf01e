/**
 * The jnr-ffi side of the jnr back end: the interfaces jnr-ffi generates its native stubs for
 * ({@code NativeLibc}'s {@code LibC} and {@code ProcLibC}, {@code WallLibC}) and {@code JffiStub} (jffi's native
 * stub, from a private cache, before jnr-ffi loads). The module exports this package only because jnr-ffi's
 * generated stubs must see the interfaces they implement; nothing in it is API, and nothing in it imports the
 * rest of the module. The classes over these bindings ({@code NativeAccess}, {@code NativeFs}, {@code JnrWall})
 * live in {@code io.github.procscope.linux.sys}. Each class loads its library once and reports an unusable one
 * as a typed exception.
 */
package io.github.procscope.linux.sys.internal;
