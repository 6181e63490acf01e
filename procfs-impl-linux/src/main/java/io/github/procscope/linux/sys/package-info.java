/**
 * The ground floor: everything that crosses into the kernel. The native wall is one contract,
 * {@link io.github.procscope.linux.sys.NativeWall}, with two back ends, of which
 * {@link io.github.procscope.linux.sys.NativeWalls} chooses one per JVM, in that one place: the FFM API on JDK
 * 22+ ({@code FfmWall}, compiled for release 22 from {@code src/main/java22}) and jnr-posix/jnr-ffi on JDK 17
 * to 21 ({@code JnrWall}); the system property {@code procscope.native.backend} ({@code ffm} or {@code jnr})
 * forces one. Above the wall sit the call sets the upper floors use, each a class over the wall it is given,
 * none choosing a back end: {@code ProcessCalls}, {@code FsCalls} and the per-process file reads
 * ({@code ProcFiles}: {@code WallProcFiles} over the wall, or the JDK's way until the wall has loaded), with
 * the {@code Errno} values and {@code FileStatus} types they share. Beside them: the raw reading of kernel files
 * ({@code ProcBuffer}, {@code ByteCursor}), what a failed read means ({@code ReadFailures}), the kernel
 * constants, the proc connector's socket. Nothing here is API.
 */
package io.github.procscope.linux.sys;
