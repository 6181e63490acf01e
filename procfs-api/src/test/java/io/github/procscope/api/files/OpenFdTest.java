package io.github.procscope.api.files;

import io.github.procscope.api.core.DeviceNumber;
import org.junit.jupiter.api.Test;

import java.util.Optional;
import java.util.OptionalInt;
import java.util.OptionalLong;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class OpenFdTest {
    private static final OpenFlags RDONLY = new OpenFlags(0, AccessMode.READ_ONLY, Set.of(), 0);

    private static OpenFd fd(FdKind kind, String target, OptionalLong links) {
        return new OpenFd(42, 3, kind, target, Optional.empty(), false, OptionalLong.empty(), OptionalLong.empty(),
                links, Optional.of(new DeviceNumber(0, 14)), OptionalLong.of(9), Optional.empty(), 0, RDONLY,
                OptionalInt.empty());
    }

    @Test
    void anonymousInodeTypeIsTakenFromTheTarget() {
        assertEquals(Optional.of("eventfd"), fd(FdKind.ANON_INODE, "anon_inode:[eventfd]", OptionalLong.of(1)).anonInodeType());
        assertEquals(Optional.of("inotify"), fd(FdKind.ANON_INODE, "anon_inode:inotify", OptionalLong.of(1)).anonInodeType());
        assertEquals(Optional.empty(), fd(FdKind.SOCKET, "socket:[123]", OptionalLong.of(1)).anonInodeType());
    }

    @Test
    void deletedSpaceIsARegularFileWithoutLinks() {
        assertTrue(fd(FdKind.REGULAR_FILE, "/x (deleted)", OptionalLong.of(0)).holdsDeletedSpace());
        assertFalse(fd(FdKind.REGULAR_FILE, "/x (deleted)", OptionalLong.of(1)).holdsDeletedSpace(),
                "another name still leads to it");
        assertFalse(fd(FdKind.REGULAR_FILE, "/x", OptionalLong.empty()).holdsDeletedSpace());
        assertFalse(fd(FdKind.PIPE, "pipe:[1]", OptionalLong.of(0)).holdsDeletedSpace());
    }

    @Test
    void flagsPrintAsTheKernelDoes() {
        OpenFlags f = new OpenFlags(02102002, AccessMode.READ_WRITE, Set.of(OpenFlag.O_APPEND, OpenFlag.O_CLOEXEC,
                OpenFlag.O_LARGEFILE), 0);
        assertEquals("02102002", f.octal());
        assertTrue(f.has(OpenFlag.O_CLOEXEC));
        assertFalse(f.has(OpenFlag.O_NONBLOCK));
        assertThrows(UnsupportedOperationException.class, () -> f.flags().add(OpenFlag.O_SYNC));
    }

    @Test
    void invalidValuesAreRefused() {
        assertThrows(IllegalArgumentException.class, () -> new OpenFd(0, 3, FdKind.PIPE, "pipe:[1]", Optional.empty(),
                false, OptionalLong.empty(), OptionalLong.empty(), OptionalLong.empty(), Optional.empty(),
                OptionalLong.empty(), Optional.empty(), 0, RDONLY, OptionalInt.empty()));
        assertThrows(IllegalArgumentException.class, () -> new OpenFd(1, -1, FdKind.PIPE, "pipe:[1]", Optional.empty(),
                false, OptionalLong.empty(), OptionalLong.empty(), OptionalLong.empty(), Optional.empty(),
                OptionalLong.empty(), Optional.empty(), 0, RDONLY, OptionalInt.empty()));
    }
}
