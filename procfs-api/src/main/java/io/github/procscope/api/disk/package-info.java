/**
 * File systems and disks, as {@code df}, {@code df -i}, {@code du} and {@code iostat -x} show them: the
 * mount table ({@code /proc/self/mountinfo}), each file system's space and inodes ({@code statvfs}), the
 * largest directories under a path, and disk I/O statistics ({@code /proc/diskstats}) turned into rates.
 *
 * <p>Entry point: {@link io.github.procscope.api.Procscope#resources()}; {@link
 * io.github.procscope.api.disk.IoStat#between(DiskStats, DiskStats)} is a pure function of two readings.
 */
package io.github.procscope.api.disk;
