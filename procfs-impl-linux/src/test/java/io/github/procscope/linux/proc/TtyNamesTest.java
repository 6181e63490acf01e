package io.github.procscope.linux.proc;

import org.junit.jupiter.api.Test;

import java.util.Optional;

import static org.junit.jupiter.api.Assertions.assertEquals;

/** The name of a process's controlling terminal from the device number of {@code /proc/PID/stat}'s {@code tty_nr}. */
class TtyNamesTest {
    @Test
    void ttyNamesFollowTheDeviceNumbering() {
        assertEquals(Optional.of("pts/0"), TtyNames.name(34816));
        assertEquals(Optional.of("pts/3"), TtyNames.name((136 << 8) | 3));
        assertEquals(Optional.of("pts/300"), TtyNames.name((137 << 8) | 44));
        assertEquals(Optional.of("pts/1000"), TtyNames.name((136 << 8) | (1000 & 0xff) | ((1000 & ~0xff) << 12)));
        assertEquals(Optional.of("tty1"), TtyNames.name((4 << 8) | 1));
        assertEquals(Optional.of("ttyS0"), TtyNames.name((4 << 8) | 64));
        assertEquals(Optional.of("console"), TtyNames.name((5 << 8) | 1));
        assertEquals(Optional.empty(), TtyNames.name(0));
        assertEquals(Optional.empty(), TtyNames.name(250 << 8));
    }
}
