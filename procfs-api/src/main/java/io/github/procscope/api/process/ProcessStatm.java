package io.github.procscope.api.process;

/**
 * The page counts of {@code /proc/PID/statm}, in bytes. This is where {@code ps} and {@code top} take
 * RSS from: on Linux 6.2 and later the resident count here is exact, while field 24 of
 * {@code /proc/PID/stat} is a fast per-CPU approximation that can be off by many pages on machines
 * with many CPUs. Zombies and kernel threads show all zeros.
 *
 * @param sizeBytes     total program size: the virtual size, as VSZ ({@code size})
 * @param residentBytes resident set size, RSS: anonymous + file + shared memory in RAM ({@code resident})
 * @param sharedBytes   resident file-backed and shared memory ({@code shared}: RssFile + RssShmem)
 * @param textBytes     program code ({@code text})
 * @param dataBytes     data and stack ({@code data})
 */
public record ProcessStatm(long sizeBytes, long residentBytes, long sharedBytes, long textBytes, long dataBytes) {
}
