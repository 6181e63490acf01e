package io.github.procscope.api.core;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.quicktheories.QuickTheory.qt;
import static org.quicktheories.generators.SourceDSL.integers;

class DeviceNumberTest {
    @Test
    void decodesTheGlibcEncoding() {
        assertEquals(new DeviceNumber(254, 0), DeviceNumber.fromEncoded(65024));   // /dev/vda's st_dev (0xfe00)
        assertEquals(new DeviceNumber(1, 3), DeviceNumber.fromEncoded(0x103));      // /dev/null's st_rdev
        assertEquals(new DeviceNumber(259, 1), DeviceNumber.fromEncoded(0x10301));  // nvme0n1p1: major above 255
        assertEquals(new DeviceNumber(0, 300), DeviceNumber.fromEncoded(0x10002c)); // an anonymous device, minor above 255
        assertEquals("254:0", new DeviceNumber(254, 0).toString());
    }

    @Test
    void encodingRoundTrips() {
        qt().forAll(integers().between(0, DeviceNumber.MAX_MAJOR), integers().between(0, DeviceNumber.MAX_MINOR))
                .checkAssert((major, minor) -> {
                    DeviceNumber d = new DeviceNumber(major, minor);
                    assertEquals(d, DeviceNumber.fromEncoded(d.encoded()));
                });
    }

    @Test
    void outOfRangeNumbersAreRefused() {
        assertThrows(IllegalArgumentException.class, () -> new DeviceNumber(4096, 0));
        assertThrows(IllegalArgumentException.class, () -> new DeviceNumber(0, 1 << 20));
        assertThrows(IllegalArgumentException.class, () -> new DeviceNumber(-1, 0));
        assertThrows(IllegalArgumentException.class, () -> DeviceNumber.fromEncoded(-1L));
    }
}
