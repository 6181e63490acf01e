package io.github.procscope.linux.proc;

import io.github.procscope.api.core.ProcfsException;
import io.github.procscope.api.diagnose.KernelLog;
import io.github.procscope.api.diagnose.KernelLogUnavailableException;
import io.github.procscope.api.diagnose.OomKill;
import io.github.procscope.linux.parse.KmsgParser;
import io.github.procscope.linux.parse.KmsgRecord;
import io.github.procscope.linux.parse.OomReportParser;
import io.github.procscope.linux.sys.Errno;
import io.github.procscope.linux.sys.FsCalls;
import io.github.procscope.linux.sys.ProcBuffer;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import java.util.Objects;

/**
 * The kernel log read from {@code /dev/kmsg} without blocking: one record per read, until the device
 * says there is no more ({@code EAGAIN}). A record overwritten while being read ({@code EPIPE}) is
 * skipped. A regular file in the kmsg format (a saved copy, a test fixture) is read whole. Thread-safe.
 */
public final class LinuxKernelLog implements KernelLog {
    /** The kernel limits a record to 1 KiB of text plus its header; escapes can quadruple it. */
    private static final int RECORD_BUFFER = 16 * 1024;
    /**
     * The most bytes of log read: the kernel's ring buffer is at most 32 MiB ({@code CONFIG_LOG_BUF_SHIFT} 25)
     * and in practice a few hundred KiB; a log past this is refused rather than read whole.
     */
    static final int MAX_LOG_BYTES = 16 << 20;
    /** {@code /dev/kmsg}'s device number: major 1, minor 11. */
    private static final long KMSG_RDEV = (1 << 8) | 11;

    private final Path kmsg;
    private final Instant bootTime;

    private LinuxKernelLog(Path kmsg, Instant bootTime) {
        this.kmsg = kmsg;
        this.bootTime = bootTime;
    }

    /**
     * @param kmsg     {@code /dev/kmsg}, or a file in its format
     * @param bootTime when the machine booted (log timestamps count from it)
     * @return a reader of that log
     */
    public static LinuxKernelLog at(Path kmsg, Instant bootTime) {
        return new LinuxKernelLog(Objects.requireNonNull(kmsg, "kmsg"), Objects.requireNonNull(bootTime, "bootTime"));
    }

    @Override
    public List<OomKill> oomKills() {
        return OomReportParser.find(records(), bootTime);
    }

    /** @return every record still in the log, oldest first */
    List<KmsgRecord> records() {
        if (Files.isRegularFile(kmsg)) {
            ProcBuffer buf = new ProcBuffer();
            switch (buf.read(kmsg.toString(), MAX_LOG_BYTES)) {
                case OK:
                    return KmsgParser.parse(kmsg, buf.bytes(), buf.length());
                case DENIED:
                    throw new KernelLogUnavailableException("the kernel log " + kmsg + " may not be read by this user");
                default:
                    throw new KernelLogUnavailableException("there is no kernel log " + kmsg);
            }
        }
        requireKmsgDevice();
        byte[] all = readDevice();
        return KmsgParser.parse(kmsg, all, all.length);
    }

    /** Refuses anything but a regular file or the kernel log device itself (a FIFO, {@code /dev/zero}). */
    private void requireKmsgDevice() {
        java.util.Map<String, Object> attrs;
        try {
            attrs = Files.readAttributes(kmsg, "unix:mode,rdev");
        } catch (NoSuchFileException e) {
            throw new KernelLogUnavailableException("there is no kernel log device " + kmsg);
        } catch (IOException | UnsupportedOperationException e) {
            throw new KernelLogUnavailableException("cannot read the kernel log " + kmsg + ": " + e.getMessage());
        }
        boolean charDevice = attrs.get("mode") instanceof Integer && ((Integer) attrs.get("mode") & 0xF000) == 0x2000;
        if (!charDevice || !Long.valueOf(KMSG_RDEV).equals(attrs.get("rdev"))) {
            throw new io.github.procscope.api.core.ProcfsFileRefusedException(kmsg, kmsg + " is neither the kernel log device (1:11) nor a regular file "
                    + "in its format; refusing to read it");
        }
    }

    private byte[] readDevice() {
        FsCalls fs = FsCalls.get();
        int fd = fs.openNonBlocking(kmsg.toString());
        if (fd < 0) {
            throw unreadable(-fd);
        }
        try {
            ByteArrayOutputStream all = new ByteArrayOutputStream(1 << 16);
            byte[] record = new byte[RECORD_BUFFER];
            while (true) {
                int n = fs.read(fd, record);
                if (n > 0) {
                    if (all.size() + n + 1 > MAX_LOG_BYTES) {
                        throw new io.github.procscope.api.core.ProcfsFileRefusedException(kmsg, kmsg + " gave more than " + (MAX_LOG_BYTES >> 20)
                                + " MiB, more than a kernel log holds; refusing to read it");
                    }
                    all.write(record, 0, n);
                    if (record[n - 1] != '\n') {
                        all.write('\n');
                    }
                    continue;
                }
                if (n == 0 || -n == Errno.EAGAIN) {
                    break; // the end of the log
                }
                if (-n == Errno.EPIPE || -n == Errno.EINTR) {
                    continue; // overwritten while reading: the next read returns the next record
                }
                throw unreadable(-n);
            }
            return all.toByteArray();
        } finally {
            fs.close(fd);
        }
    }

    private RuntimeException unreadable(int errno) {
        if (errno == Errno.EPERM || errno == Errno.EACCES) {
            return new KernelLogUnavailableException("the kernel log " + kmsg + " may not be read by this user: "
                    + "it needs CAP_SYSLOG (root) while kernel.dmesg_restrict is 1");
        }
        if (errno == Errno.ENOENT) {
            return new KernelLogUnavailableException("there is no kernel log device " + kmsg);
        }
        return new ProcfsException(kmsg, "cannot read the kernel log " + kmsg + ": " + Errno.describe(errno));
    }
}
