package io.github.procscope.linux.parse;

import io.github.procscope.testing.Fixtures;

import io.github.procscope.api.core.ProcfsParseException;
import org.junit.jupiter.api.Test;

import java.nio.file.Path;
import java.util.List;

import static io.github.procscope.testing.Fixtures.ascii;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.quicktheories.QuickTheory.qt;
import static org.quicktheories.generators.SourceDSL.integers;
import static org.quicktheories.generators.SourceDSL.strings;

class ProcCgroupParserTest {
    private static final Path SOURCE = Path.of("/proc/self/cgroup");

    @Test
    void hybridHierarchiesAreTold() {
        byte[] b = Fixtures.bytes("cgroup-v1/proc/self/cgroup");
        List<ProcCgroupParser.Membership> m = ProcCgroupParser.parse(SOURCE, b, b.length);
        assertEquals(5, m.size());
        assertEquals(List.of("cpu", "cpuacct"), m.get(1).controllers());
        assertEquals(4, m.get(2).hierarchyId());
        assertEquals(List.of("memory"), m.get(2).controllers());
        assertEquals("/batch/job-e43a", m.get(2).path());
        assertEquals(List.of("name=systemd"), m.get(3).controllers());
        assertTrue(m.get(4).isV2());
        assertFalse(m.get(2).isV2());
    }

    @Test
    void pathsMayHoldColons() {
        byte[] b = ascii("0::/system.slice/docker-ab:cd.scope\n");
        assertEquals("/system.slice/docker-ab:cd.scope", ProcCgroupParser.parse(SOURCE, b, b.length).get(0).path());
    }

    @Test
    void malformedLinesFail() {
        for (String s : new String[] {"0:/\n", "x::/\n", "0::\n", "0::relative\n", "-1::/\n"}) {
            byte[] b = ascii(s);
            assertThrows(ProcfsParseException.class, () -> ProcCgroupParser.parse(SOURCE, b, b.length), s);
        }
    }

    @Test
    void generatedLinesRoundTrip() {
        qt().forAll(integers().between(0, 100), strings().basicLatinAlphabet().ofLengthBetween(0, 30))
                .checkAssert((id, name) -> {
                    String path = "/" + name.replace("\n", "");
                    byte[] b = ascii(id + ":memory,pids:" + path + "\n");
                    ProcCgroupParser.Membership m = ProcCgroupParser.parse(SOURCE, b, b.length).get(0);
                    assertEquals((int) id, m.hierarchyId());
                    assertEquals(List.of("memory", "pids"), m.controllers());
                    assertEquals(path, m.path());
                });
    }
}
