package io.github.procscope.api.signals;

import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Locale;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.quicktheories.QuickTheory.qt;
import static org.quicktheories.generators.SourceDSL.integers;
import static org.quicktheories.generators.SourceDSL.strings;

class SignalTest {

    @Test
    void standardSignalsHaveTheirLinuxNumbersAndNames() {
        String[] names = {"HUP", "INT", "QUIT", "ILL", "TRAP", "ABRT", "BUS", "FPE", "KILL", "USR1", "SEGV", "USR2",
            "PIPE", "ALRM", "TERM", "STKFLT", "CHLD", "CONT", "STOP", "TSTP", "TTIN", "TTOU", "URG", "XCPU", "XFSZ",
            "VTALRM", "PROF", "WINCH", "IO", "PWR", "SYS"};
        for (int n = 1; n <= 31; n++) {
            assertEquals(names[n - 1], Signal.of(n).name(), "signal " + n);
            assertFalse(Signal.of(n).isRealtime());
        }
        assertEquals(1, Signal.HUP.number());
        assertEquals(9, Signal.KILL.number());
        assertEquals(15, Signal.TERM.number());
        assertEquals(31, Signal.SYS.number());
        assertEquals(64, Signal.all().size());
    }

    @Test
    void realTimeSignalsAreNamedAsKillListPrintsThem() {
        assertEquals("RTMIN", Signal.of(34).name());
        assertEquals("RTMIN+1", Signal.of(35).name());
        assertEquals("RTMIN+15", Signal.of(49).name());
        assertEquals("RTMAX-14", Signal.of(50).name());
        assertEquals("RTMAX", Signal.of(64).name());
        assertEquals("RTMIN-2", Signal.of(32).name());
        assertTrue(Signal.of(40).isRealtime());
        assertEquals(SignalAction.TERMINATE, Signal.of(40).defaultAction());
    }

    @Test
    void defaultActionsFollowSignal7() {
        assertEquals(SignalAction.TERMINATE, Signal.TERM.defaultAction());
        assertEquals(SignalAction.TERMINATE, Signal.HUP.defaultAction());
        assertEquals(SignalAction.TERMINATE, Signal.KILL.defaultAction());
        assertEquals(SignalAction.CORE, Signal.QUIT.defaultAction());
        assertEquals(SignalAction.CORE, Signal.SEGV.defaultAction());
        assertEquals(SignalAction.CORE, Signal.ABRT.defaultAction());
        assertEquals(SignalAction.IGNORE, Signal.CHLD.defaultAction());
        assertEquals(SignalAction.IGNORE, Signal.WINCH.defaultAction());
        assertEquals(SignalAction.IGNORE, Signal.URG.defaultAction());
        assertEquals(SignalAction.STOP, Signal.STOP.defaultAction());
        assertEquals(SignalAction.STOP, Signal.TSTP.defaultAction());
        assertEquals(SignalAction.CONTINUE, Signal.CONT.defaultAction());
        assertFalse(Signal.KILL.isCatchable());
        assertFalse(Signal.STOP.isCatchable());
        assertTrue(Signal.TERM.isCatchable());
    }

    @Test
    void parsesNameSigNameAndNumber() {
        assertSame(Signal.TERM, Signal.parse("TERM"));
        assertSame(Signal.TERM, Signal.parse("SIGTERM"));
        assertSame(Signal.TERM, Signal.parse("15"));
        assertSame(Signal.TERM, Signal.parse("sigterm"));
        assertSame(Signal.TERM, Signal.parse(" term\n"));
        assertSame(Signal.KILL, Signal.parse("9"));
        assertSame(Signal.ABRT, Signal.parse("SIGIOT"));
        assertSame(Signal.CHLD, Signal.parse("CLD"));
        assertSame(Signal.IO, Signal.parse("POLL"));
        assertSame(Signal.of(37), Signal.parse("SIGRTMIN+3"));
        assertSame(Signal.of(62), Signal.parse("RTMAX-2"));
        assertSame(Signal.of(64), Signal.parse("64"));
    }

    @Test
    void refusesWhatIsNoSignalNamingTheText() {
        for (String bad : List.of("", " ", "0", "65", "-15", "+15", "015", "SIG", "SIGSIGTERM", "TERMX", "RTMIN-3",
                "RTMAX+1", "RTMIN+", "SIG15", "\u0131nt", "TERM\u0000")) {
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> Signal.parse(bad), bad);
            assertTrue(e.getMessage().contains("\"" + bad + "\""), e.getMessage());
            assertTrue(Signal.tryParse(bad).isEmpty(), bad);
        }
        assertThrows(IllegalArgumentException.class, () -> Signal.of(0));
        assertThrows(IllegalArgumentException.class, () -> Signal.of(65));
        assertThrows(NullPointerException.class, () -> Signal.parse(null));
    }

    @Test
    void everySignalsNameSigNameAndNumberParseBackToItself() {
        qt().forAll(integers().between(1, Signal.MAX_NUMBER)).checkAssert(n -> {
            Signal s = Signal.of(n);
            assertSame(s, Signal.parse(s.name()));
            assertSame(s, Signal.parse(s.fullName()));
            assertSame(s, Signal.parse(s.fullName().toLowerCase(Locale.ROOT)));
            assertSame(s, Signal.parse(Integer.toString(n)));
            assertSame(s, Signal.parse(s.toString()));
            assertEquals(n, s.number());
        });
    }

    @Test
    void randomTextNeverThrowsAnythingButIllegalArgument() {
        qt().forAll(strings().allPossible().ofLengthBetween(0, 24)).checkAssert(text -> {
            try {
                Signal s = Signal.parse(text);
                assertTrue(s.number() >= 1 && s.number() <= 64);
            } catch (IllegalArgumentException expected) {
                assertTrue(expected.getMessage().startsWith("unknown signal"), expected.getMessage());
            }
        });
        qt().forAll(strings().basicLatinAlphabet().ofLengthBetween(0, 12)).checkAssert(text -> {
            try {
                Signal.parse("SIG" + text);
                Signal.parse("RTMIN" + text);
            } catch (IllegalArgumentException expected) {
                // the only failure allowed
            }
        });
    }
}
