package io.github.procscope.nvml;

import java.util.Optional;

/**
 * An NVIDIA driver version as {@code nvmlSystemGetDriverVersion} reports it: {@code major.minor} or
 * {@code major.minor.patch} ({@code 535.54.03}, {@code 550.127.08}).
 *
 * @param major the branch, such as 535
 * @param minor the release within the branch, such as 54
 * @param patch the patch level, 0 when the version has none
 * @param text  the version as the driver reported it
 */
record DriverVersion(int major, int minor, int patch, String text) {

    /**
     * @param text the reported version
     * @return the version, or empty if the text is not one (a vGPU guest or a future format)
     */
    static Optional<DriverVersion> parse(String text) {
        int[] parts = new int[3];
        int count = 0;
        int value = -1;
        for (int i = 0; i <= text.length(); i++) {
            char c = i < text.length() ? text.charAt(i) : '.';
            if (c >= '0' && c <= '9') {
                if (value > 100_000) {
                    return Optional.empty();
                }
                value = value < 0 ? c - '0' : value * 10 + (c - '0');
            } else if (c == '.' && value >= 0 && count < 3) {
                parts[count++] = value;
                value = -1;
            } else {
                return Optional.empty();
            }
        }
        if (count < 2) {
            return Optional.empty();
        }
        return Optional.of(new DriverVersion(parts[0], parts[1], count == 3 ? parts[2] : 0, text));
    }

    /**
     * Drivers 535.43 through 535.86 wrote {@code nvmlProcessDetail_v1_t}-sized (32-byte) entries from the
     * {@code _v3} process lists while the header promised 24-byte {@code nvmlProcessInfo_t} entries.
     *
     * @return whether this driver is one of them
     */
    boolean writes32ByteV3ProcessEntries() {
        return major == 535 && minor >= 43 && minor <= 86;
    }

    @Override
    public String toString() {
        return text;
    }
}
