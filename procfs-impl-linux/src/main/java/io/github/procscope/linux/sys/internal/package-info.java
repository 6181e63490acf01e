/**
 * The jnr-ffi side of the jnr back end: the interface jnr-ffi generates its native stubs for ({@code WallLibC})
 * and {@code JffiStub} (jffi's native stub, from a private cache, before jnr-ffi or jnr-posix loads). The module
 * exports this package only because jnr-ffi's generated stubs must see the interface they implement; nothing in
 * it is API, and nothing in it imports the rest of the module. The back end over these bindings
 * ({@code JnrWall}) lives in {@code io.github.procscope.linux.sys}.
 */
package io.github.procscope.linux.sys.internal;
