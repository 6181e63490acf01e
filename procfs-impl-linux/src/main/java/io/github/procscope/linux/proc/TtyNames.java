package io.github.procscope.linux.proc;

import java.util.Optional;

/**
 * Names of terminal devices from the device number in {@code /proc/PID/stat} field 7, for the
 * drivers whose numbering is fixed in {@code Documentation/admin-guide/devices.txt}: pseudo-terminals
 * ({@code pts/N}, majors 136-143), virtual consoles ({@code ttyN}), 8250 serial ports ({@code ttySN}),
 * USB serial ({@code ttyUSBN}, {@code ttyACMN}) and ARM AMBA serial ({@code ttyAMAN}).
 */
final class TtyNames {
    private TtyNames() {
    }

    static int major(int dev) {
        return (dev >>> 8) & 0xfff;
    }

    static int minor(int dev) {
        return (dev & 0xff) | ((dev >>> 12) & 0xfff00);
    }

    /**
     * @param ttyNr the device number as {@code /proc/PID/stat} prints it
     * @return the device's name under {@code /dev}, or empty for no terminal or an unknown driver
     */
    static Optional<String> name(int ttyNr) {
        if (ttyNr == 0) {
            return Optional.empty();
        }
        int major = major(ttyNr);
        int minor = minor(ttyNr);
        if (major >= 136 && major <= 143) {
            return Optional.of("pts/" + ((major - 136) * 256 + minor));
        }
        switch (major) {
            case 4:
                return Optional.of(minor < 64 ? "tty" + minor : "ttyS" + (minor - 64));
            case 5:
                switch (minor) {
                    case 0: return Optional.of("tty");
                    case 1: return Optional.of("console");
                    case 2: return Optional.of("ptmx");
                    default: return Optional.empty();
                }
            case 166:
                return Optional.of("ttyACM" + minor);
            case 188:
                return Optional.of("ttyUSB" + minor);
            case 204:
                return minor >= 64 && minor < 64 + 32 ? Optional.of("ttyAMA" + (minor - 64)) : Optional.empty();
            default:
                return Optional.empty();
        }
    }
}
