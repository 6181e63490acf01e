/**
 * The ground floor: everything that crosses into the kernel. The native wall is one contract,
 * {@link io.github.procscope.linux.sys.NativeWall}, with two back ends chosen at run time
 * ({@link io.github.procscope.linux.sys.NativeWalls}): the FFM API on JDK 22+ ({@code FfmWall}, compiled for
 * release 22 from {@code src/main/java22}) and jnr-posix/jnr-ffi on JDK 17 to 21 ({@code JnrWall}); the system
 * property {@code procscope.native.backend} ({@code ffm} or {@code jnr}) forces one. Above it sit the call sets
 * the upper floors use, each with a jnr-posix implementation and one over the wall: {@code ProcessCalls}
 * ({@code NativeAccess} / {@code WallProcessCalls}), {@code FsCalls}
 * ({@code NativeFs} / {@code WallFs}) and the per-process file reads ({@code ProcFiles}: {@code NativeProcFiles}
 * / {@code WallProcFiles}, or the JDK). Beside them: the raw reading of kernel files ({@code ProcBuffer},
 * {@code ByteCursor}), what a failed read means ({@code ReadFailures}), the kernel constants, the proc
 * connector's socket. Nothing here is API.
 */
package io.github.procscope.linux.sys;
