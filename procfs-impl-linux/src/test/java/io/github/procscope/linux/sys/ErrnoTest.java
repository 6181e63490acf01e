package io.github.procscope.linux.sys;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;

/** The errno values of the generic Linux ABI, and their names in messages. */
class ErrnoTest {
    @Test
    void theValuesAreLinuxs() {
        // asm-generic/errno-base.h and errno.h: the numbers every architecture procscope runs on shares.
        assertEquals(1, Errno.EPERM);
        assertEquals(2, Errno.ENOENT);
        assertEquals(3, Errno.ESRCH);
        assertEquals(4, Errno.EINTR);
        assertEquals(11, Errno.EAGAIN);
        assertEquals(13, Errno.EACCES);
        assertEquals(20, Errno.ENOTDIR);
        assertEquals(32, Errno.EPIPE);
        assertEquals(38, Errno.ENOSYS);
    }

    @Test
    void aMessageNamesTheErrnoAndSaysWhatItMeans() {
        assertEquals("EACCES (Permission denied)", Errno.describe(13));
        assertEquals("ENOENT (No such file or directory)", Errno.describe(2));
        assertEquals("errno 100000", Errno.describe(100_000));
    }
}
