package io.github.procscope.api.core;

import java.nio.file.Path;

/**
 * Something stands where a kernel file should be that is not one, so it was not read: a FIFO, a device, a
 * directory or a socket instead of a regular file, or a file longer than the kernel ever writes there. Reading
 * it could block forever or fill memory; the message names the path and what was found.
 */
public class ProcfsFileRefusedException extends ProcfsException {
    private static final long serialVersionUID = 1L;

    /**
     * Creates the exception.
     * @param file    the path refused
     * @param message what was found there instead of a kernel file
     */
    public ProcfsFileRefusedException(Path file, String message) {
        super(file, message);
    }
}
