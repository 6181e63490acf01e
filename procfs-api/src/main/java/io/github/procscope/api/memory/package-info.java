/**
 * Memory, as {@code pmap}, {@code ps} and {@code free} show it: the regions of a process's address space
 * ({@code /proc/PID/maps}), what each holds in physical memory ({@code /proc/PID/smaps}), a process's
 * totals (VSZ, RSS, PSS, USS, swap from {@code /proc/PID/smaps_rollup}), the system's memory
 * ({@code /proc/meminfo}) and the memory ceiling of the current cgroup.
 *
 * <p>Entry points: {@link io.github.procscope.api.Procscope#memory()} for processes and
 * {@link io.github.procscope.api.Procscope#resources()} for the system and cgroup figures.
 *
 * <p>Why several figures: VSZ is address space reserved, touched or not; RSS is what is resident,
 * counting shared pages fully in every process that maps them; PSS divides each shared page among its
 * sharers (the sum of PSS over all processes is the memory really used); USS is what only this process
 * holds (private clean + private dirty), the memory freed if it exits.
 */
package io.github.procscope.api.memory;
