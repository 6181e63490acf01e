package io.github.procscope.linux.parse;

import io.github.procscope.api.core.ProcfsParseException;
import io.github.procscope.api.process.ProcessIo;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** {@code /proc/PID/io}: seven counters by name, in any order, later keys skipped, bad values named. */
class IoParserTest {
    private static final Path FILE = Path.of("/proc/4100/io");
    private static final String KERNEL = "rchar: 323934931\nwchar: 323929600\nsyscr: 632687\nsyscw: 632675\n"
            + "read_bytes: 4096\nwrite_bytes: 323932160\ncancelled_write_bytes: 8192\n";

    private static ProcessIo parse(String s) {
        byte[] b = s.getBytes(StandardCharsets.ISO_8859_1);
        return IoParser.parse(() -> FILE, b, b.length);
    }

    @Test
    void theKernelsSevenCountersAreReadByName() {
        assertEquals(new ProcessIo(323934931, 323929600, 632687, 632675, 4096, 323932160, 8192), parse(KERNEL));
    }

    @Test
    void anotherOrderAndALaterKernelsKeysAreAccepted() {
        String shuffled = "syscw: 4\nsyscr: 3\nfuture_counter: 99\nwchar: 2\nrchar: 1\ncancelled_write_bytes: 7\n"
                + "write_bytes: 6\nread_bytes: 5";
        assertEquals(new ProcessIo(1, 2, 3, 4, 5, 6, 7), parse(shuffled));
    }

    @Test
    void theLargestSignedValueIsKeptAndAnythingAboveIsOutOfRange() {
        assertEquals(Long.MAX_VALUE, parse(KERNEL.replace("rchar: 323934931", "rchar: 9223372036854775807"))
                .readChars());
        ProcfsParseException e = assertThrows(ProcfsParseException.class,
                () -> parse(KERNEL.replace("rchar: 323934931", "rchar: 18446744073709551615")));
        assertTrue(e.getMessage().contains("rchar out of range"), e.getMessage());
        assertTrue(e.getMessage().contains("/proc/4100/io"), e.getMessage());
    }

    @Test
    void aMissingRepeatedOrMalformedCounterIsNamed() {
        assertTrue(assertThrows(ProcfsParseException.class, () -> parse(KERNEL.replace("syscw: 632675\n", "")))
                .getMessage().contains("no syscw line"));
        assertTrue(assertThrows(ProcfsParseException.class, () -> parse(KERNEL + "wchar: 1\n"))
                .getMessage().contains("wchar appears twice"));
        assertTrue(assertThrows(ProcfsParseException.class, () -> parse(KERNEL.replace("syscr: 632687", "syscr: 6x")))
                .getMessage().contains("after the value of syscr"));
        assertTrue(assertThrows(ProcfsParseException.class, () -> parse("rchar 5\n")).getMessage()
                .contains("key: value"));
        assertThrows(ProcfsParseException.class, () -> parse(""));
    }
}
