package io.github.procscope.cli;

import java.io.IOException;
import java.nio.file.AccessDeniedException;
import java.nio.file.DirectoryNotEmptyException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.FileSystemException;
import java.nio.file.FileSystemLoopException;
import java.nio.file.NoSuchFileException;
import java.nio.file.NotDirectoryException;

/**
 * The cause of a failed file operation in words, as {@code strerror(3)} says it ("Permission denied", "No space
 * left on device"): the JDK's {@link FileSystemException} subclasses carry only the path in their message, so
 * "cannot make X: " + the message said "cannot make X: X".
 */
final class IoErrors {
    private IoErrors() {
    }

    /**
     * @param e a failed file operation
     * @return its cause in words, never the bare path
     */
    static String reason(IOException e) {
        if (e instanceof AccessDeniedException) {
            return "Permission denied";
        }
        if (e instanceof NoSuchFileException) {
            return "No such file or directory";
        }
        if (e instanceof FileAlreadyExistsException) {
            return "File exists";
        }
        if (e instanceof NotDirectoryException) {
            return "Not a directory";
        }
        if (e instanceof DirectoryNotEmptyException) {
            return "Directory not empty";
        }
        if (e instanceof FileSystemLoopException) {
            return "Too many levels of symbolic links";
        }
        if (e instanceof FileSystemException f && f.getReason() != null && !f.getReason().isBlank()) {
            return f.getReason().strip();
        }
        String m = e.getMessage();
        return m == null || m.isBlank() ? e.getClass().getSimpleName() : m.strip();
    }
}
