package io.github.procscope.api.process;

/**
 * The I/O counters of one process, from {@code /proc/PID/io} (the kernel's task I/O accounting), since the
 * process started; its exited threads are included, its children are not. Readable only by the process's owner
 * (more exactly: who may ptrace-read it) and root.
 *
 * @param readChars           bytes the process asked to read with {@code read(2)} and the like ({@code rchar}),
 *                            whether they came from storage, the page cache, a pipe or a socket
 * @param writtenChars        bytes the process asked to write ({@code wchar}), wherever they went
 * @param readSyscalls        read system calls ({@code syscr})
 * @param writeSyscalls       write system calls ({@code syscw})
 * @param storageReadBytes    bytes the process caused to be fetched from storage ({@code read_bytes}): what
 *                            {@code iotop} and process-exporter's {@code read_bytes} count
 * @param storageWriteBytes   bytes the process caused to be sent to storage ({@code write_bytes}), counted when
 *                            it dirties page-cache pages, not when they reach the disk
 * @param cancelledWriteBytes bytes of {@code storageWriteBytes} that never reached storage because the file was
 *                            truncated or deleted first ({@code cancelled_write_bytes})
 */
public record ProcessIo(long readChars, long writtenChars, long readSyscalls, long writeSyscalls,
                        long storageReadBytes, long storageWriteBytes, long cancelledWriteBytes) {
    /** Checks that no counter is negative. */
    public ProcessIo {
        if (readChars < 0 || writtenChars < 0 || readSyscalls < 0 || writeSyscalls < 0 || storageReadBytes < 0
                || storageWriteBytes < 0 || cancelledWriteBytes < 0) {
            throw new IllegalArgumentException("I/O counters must not be negative: " + readChars + ", "
                    + writtenChars + ", " + readSyscalls + ", " + writeSyscalls + ", " + storageReadBytes + ", "
                    + storageWriteBytes + ", " + cancelledWriteBytes);
        }
    }
}
