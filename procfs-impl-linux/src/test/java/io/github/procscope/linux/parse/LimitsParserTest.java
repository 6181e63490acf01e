package io.github.procscope.linux.parse;

import io.github.procscope.api.core.ProcfsParseException;
import io.github.procscope.api.process.ResourceLimit;
import io.github.procscope.api.process.ResourceLimits;
import io.github.procscope.testing.Fixtures;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;
import java.util.OptionalLong;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code /proc/PID/limits}: names with spaces in a 25-column field, numbers or {@code unlimited}, units that some
 * limits lack; damaged lines named; the live file of this JVM agrees with what it was started with.
 */
class LimitsParserTest {
    private static final Path FILE = Path.of("/proc/100/limits");

    private static ResourceLimits parse(String s) {
        byte[] b = s.getBytes(StandardCharsets.ISO_8859_1);
        return LimitsParser.parse(FILE, b, b.length);
    }

    private static String fixture() throws Exception {
        return Files.readString(Fixtures.proc().resolve("100/limits"), StandardCharsets.ISO_8859_1);
    }

    @Test
    void everyLimitOfTheKernelsFileIsReadWithItsUnit() throws Exception {
        ResourceLimits l = parse(fixture());
        assertEquals(16, l.limits().size());
        assertEquals(new ResourceLimit("Max open files", OptionalLong.of(1024), OptionalLong.of(524288),
                Optional.of("files")), l.openFiles().orElseThrow());
        assertEquals(new ResourceLimit("Max cpu time", OptionalLong.empty(), OptionalLong.empty(),
                Optional.of("seconds")), l.limits().get(0));
        assertEquals(new ResourceLimit("Max stack size", OptionalLong.of(8388608), OptionalLong.empty(),
                Optional.of("bytes")), l.find("Max stack size").orElseThrow());
        assertEquals(new ResourceLimit("Max nice priority", OptionalLong.of(0), OptionalLong.of(0), Optional.empty()),
                l.find("Max nice priority").orElseThrow());
        assertEquals("Max realtime timeout", l.limits().get(15).name());
        assertEquals(Optional.empty(), l.find("Max open file"));
    }

    @Test
    void valuesAtOrAbove2To63LimitNothingAndReadAsUnlimited() throws Exception {
        String f = fixture().replace("Max open files            1024                 524288 ",
                "Max open files            9223372036854775807  18446744073709551614 ");
        ResourceLimit open = parse(f).openFiles().orElseThrow();
        assertEquals(OptionalLong.of(Long.MAX_VALUE), open.soft());
        assertEquals(OptionalLong.empty(), open.hard());
        ProcfsParseException e = assertThrows(ProcfsParseException.class, () -> parse(fixture().replace(
                "1024                 524288 ", "18446744073709551616 524288 ")));
        assertTrue(e.getMessage().contains("/proc/100/limits"), e.getMessage());
    }

    @Test
    void aDamagedFileIsRefusedWithTheLineNamed() throws Exception {
        assertThrows(ProcfsParseException.class, () -> parse(""));
        assertThrows(ProcfsParseException.class, () -> parse("Max open files            1024   1024   files\n"));
        ProcfsParseException e = assertThrows(ProcfsParseException.class,
                () -> parse(fixture().replace("524288 ", "lots   ")));
        assertTrue(e.getMessage().contains("Max open files"), e.getMessage());
        assertThrows(ProcfsParseException.class, () -> parse(fixture() + "Max short\n"));
        assertThrows(ProcfsParseException.class, () -> parse(fixture().replace("files     \n", "files of\n")));
        assertThrows(ProcfsParseException.class, () -> parse(fixture() + "                          1 1\n"));
    }

    @Test
    void aNameThatIsNotUtf8IsDecodedWithoutFailing() throws Exception {
        byte[] head = fixture().substring(0, fixture().indexOf('\n') + 1).getBytes(StandardCharsets.ISO_8859_1);
        byte[] line = "Max \u00ff\u00fe thing             1                    2                    x\n"
                .getBytes(StandardCharsets.ISO_8859_1);
        byte[] b = new byte[head.length + line.length];
        System.arraycopy(head, 0, b, 0, head.length);
        System.arraycopy(line, 0, b, head.length, line.length);
        ResourceLimits l = LimitsParser.parse(FILE, b, b.length);
        assertEquals(OptionalLong.of(2), l.limits().get(0).hard());
        assertTrue(l.limits().get(0).name().startsWith("Max "));
    }

    @Test
    void wchanIsTheFunctionNameOrEmptyForARunningTask() {
        byte[] name = "do_epoll_wait".getBytes(StandardCharsets.US_ASCII);
        assertEquals(Optional.of("do_epoll_wait"), WchanParser.parse(name, name.length));
        byte[] zero = {'0'};
        assertEquals(Optional.empty(), WchanParser.parse(zero, 1));
        assertEquals(Optional.empty(), WchanParser.parse(new byte[0], 0));
        byte[] padded = "  futex_wait_queue\n".getBytes(StandardCharsets.US_ASCII);
        assertEquals(Optional.of("futex_wait_queue"), WchanParser.parse(padded, padded.length));
    }
}
