package io.github.procscope.api.core;

/**
 * A Linux device number: the major number names the driver, the minor number the device it drives.
 * The kernel shows them as {@code major:minor} in {@code /proc/PID/maps} (in hexadecimal),
 * {@code /proc/PID/mountinfo} and {@code /proc/diskstats} (in decimal), and packs them into one
 * {@code dev_t} in {@code stat(2)}'s {@code st_dev} and {@code st_rdev}.
 *
 * @param major the major number, 0 to 4095 (12 bits)
 * @param minor the minor number, 0 to 1048575 (20 bits)
 */
public record DeviceNumber(int major, int minor) {
    /** The largest major number the kernel hands out (12 bits). */
    public static final int MAX_MAJOR = (1 << 12) - 1;
    /** The largest minor number the kernel hands out (20 bits). */
    public static final int MAX_MINOR = (1 << 20) - 1;

    /**
     * Checks the components.
     * @throws IllegalArgumentException if either number is out of its range
     */
    public DeviceNumber {
        if (major < 0 || major > MAX_MAJOR) {
            throw new IllegalArgumentException("device major number out of range 0.." + MAX_MAJOR + ": " + major);
        }
        if (minor < 0 || minor > MAX_MINOR) {
            throw new IllegalArgumentException("device minor number out of range 0.." + MAX_MINOR + ": " + minor);
        }
    }

    /**
     * Decodes a {@code dev_t} as {@code stat(2)} returns it on Linux ({@code gnu_dev_major} and
     * {@code gnu_dev_minor}: major in bits 8-19 and 32-43, minor in bits 0-7 and 12-31).
     *
     * @param dev the packed device number
     * @return its major and minor numbers
     * @throws IllegalArgumentException if the value holds a number out of the kernel's ranges
     */
    public static DeviceNumber fromEncoded(long dev) {
        long major = ((dev >>> 8) & 0xfffL) | ((dev >>> 32) & ~0xfffL);
        long minor = (dev & 0xffL) | ((dev >>> 12) & ~0xffL & 0xffff_ffffL);
        if (major > MAX_MAJOR || minor > MAX_MINOR) {
            throw new IllegalArgumentException("not a Linux device number: 0x" + Long.toHexString(dev));
        }
        return new DeviceNumber((int) major, (int) minor);
    }

    /** {@return the packed {@code dev_t} form ({@code gnu_dev_makedev})} */
    public long encoded() {
        long maj = major;
        long min = minor;
        return (min & 0xffL) | ((maj & 0xfffL) << 8) | ((min & ~0xffL) << 12) | ((maj & ~0xfffL) << 32);
    }

    /** {@return {@code major:minor} in decimal, as {@code lsof}, {@code mountinfo} and {@code diskstats} show it} */
    @Override
    public String toString() {
        return major + ":" + minor;
    }
}
