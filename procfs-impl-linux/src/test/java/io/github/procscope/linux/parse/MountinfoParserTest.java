package io.github.procscope.linux.parse;

import io.github.procscope.testing.Fixtures;

import io.github.procscope.api.core.DeviceNumber;
import io.github.procscope.api.core.ProcfsParseException;
import io.github.procscope.api.disk.MountInfo;
import org.junit.jupiter.api.Test;

import java.nio.file.Path;
import java.util.List;

import static io.github.procscope.testing.Fixtures.ascii;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.quicktheories.QuickTheory.qt;
import static org.quicktheories.generators.SourceDSL.strings;

class MountinfoParserTest {
    private static final Path SOURCE = Path.of("/proc/self/mountinfo");

    private static List<MountInfo> fixture() {
        byte[] b = Fixtures.bytes("files/mountinfo/escaped");
        return MountinfoParser.parse(SOURCE, b, b.length);
    }

    @Test
    void readsEveryField() {
        List<MountInfo> m = fixture();
        assertEquals(14, m.size());
        MountInfo root = m.get(2);
        assertEquals(27, root.mountId());
        assertEquals(1, root.parentId());
        assertEquals(new DeviceNumber(254, 0), root.device());
        assertEquals("/", root.root());
        assertEquals("/", root.mountPoint());
        assertEquals(List.of("rw", "relatime"), root.mountOptions());
        assertEquals(List.of("shared:1"), root.optionalFields());
        assertEquals("ext4", root.fsType());
        assertEquals("/dev/vda", root.source());
        assertEquals(List.of("rw", "discard", "errors=remount-ro"), root.superOptions());
        assertFalse(root.isPseudo());
        assertFalse(root.isReadOnly());
    }

    @Test
    void escapedMountPointsAreUnescaped() {
        List<MountInfo> m = fixture();
        assertEquals("/mnt/my disk", m.get(6).mountPoint());
        assertEquals("/mnt/tab\tand\nnewline", m.get(7).mountPoint());
        assertEquals("/mnt/back\\slash", m.get(8).mountPoint());
        assertEquals("user@host:/srv data", m.get(8).source());
        assertEquals("/mnt/my disk/nested", m.get(10).mountPoint());
    }

    @Test
    void optionalFieldsMayBeManyOrNone() {
        List<MountInfo> m = fixture();
        assertEquals(List.of("shared:30", "master:7"), m.get(6).optionalFields());
        assertEquals(List.of(), m.get(7).optionalFields());
        assertEquals(List.of("shared:31", "master:8", "propagate_from:2", "unbindable"), m.get(8).optionalFields());
        assertEquals("fuse.sshfs", m.get(8).fsType());
    }

    @Test
    void bindMountOfASubdirectoryHasItsRoot() {
        MountInfo home = fixture().get(9);
        assertEquals("/exports/home", home.root());
        assertEquals("/home", home.mountPoint());
    }

    @Test
    void pseudoAndReadOnlyMountsAreRecognised() {
        List<MountInfo> m = fixture();
        assertTrue(m.get(0).isPseudo(), "proc");
        assertTrue(m.get(4).isPseudo(), "cgroup");
        assertTrue(m.get(5).isPseudo(), "cgroup2");
        assertFalse(m.get(11).isPseudo(), "tmpfs holds data");
        assertTrue(m.get(13).isReadOnly());
    }

    @Test
    void missingSuperOptionsAreTolerated() {
        byte[] b = ascii("67 27 0:51 / /run/empty ro,relatime - tmpfs none\n");
        assertEquals(List.of(), MountinfoParser.parse(SOURCE, b, b.length).get(0).superOptions());
    }

    @Test
    void malformedLinesFail() {
        String[] bad = {
            "27 1 254:0 / / rw,relatime shared:1 ext4 /dev/vda rw\n",  // no separator
            "27 1 254 / / rw - ext4 /dev/vda rw\n",
            "27 1 254:0 / / rw -  /dev/vda rw\n",                        // empty type
            "x 1 254:0 / / rw - ext4 /dev/vda rw\n",
            "27 1 9999:0 / / rw - ext4 /dev/vda rw\n",
            "27 1 254:0 / / rw - ext4 /dev/vda rw extra\n",
            "27 1 254:0 /\n",
        };
        for (String s : bad) {
            byte[] b = ascii(s);
            assertThrows(ProcfsParseException.class, () -> MountinfoParser.parse(SOURCE, b, b.length), s);
        }
    }

    @Test
    void escapedPathsRoundTrip() {
        qt().forAll(strings().basicLatinAlphabet().ofLengthBetween(1, 40), strings().basicLatinAlphabet().ofLengthBetween(1, 20))
                .checkAssert((dir, src) -> {
                    String mountPoint = "/" + dir.replace("\n", "x") + "\t\n\\ end";
                    String line = "100 27 8:1 / " + escape(mountPoint) + " rw shared:5 - ext4 " + escape(src)
                            + " rw,errors=remount-ro\n";
                    byte[] b = ascii(line);
                    MountInfo m = MountinfoParser.parse(SOURCE, b, b.length).get(0);
                    assertEquals(mountPoint, m.mountPoint());
                    assertEquals(src, m.source());
                    assertEquals(List.of("shared:5"), m.optionalFields());
                });
    }

    /** The kernel's escaping of mountinfo fields: space, tab, newline and backslash as octal. */
    private static String escape(String s) {
        StringBuilder sb = new StringBuilder();
        for (char c : s.toCharArray()) {
            switch (c) {
                case ' ': sb.append("\\040"); break;
                case '\t': sb.append("\\011"); break;
                case '\n': sb.append("\\012"); break;
                case '\\': sb.append("\\134"); break;
                default: sb.append(c);
            }
        }
        return sb.toString();
    }
}
