package io.github.procscope.linux.parse;

/**
 * One record of the kernel log as {@code /dev/kmsg} gives it.
 *
 * @param level    syslog level, 0 (emergency) to 7 (debug)
 * @param facility syslog facility (0 for the kernel itself)
 * @param sequence the record's sequence number
 * @param micros   microseconds since boot on the kernel's monotonic clock
 * @param message  the text, with the kernel's {@code \xNN} escapes undone
 */
public record KmsgRecord(int level, int facility, long sequence, long micros, String message) {
}
