package io.github.procscope.api.gpu;

/**
 * Row remapping of a GPU's memory ({@code nvmlDeviceGetRemappedRows}, Ampere and newer with HBM): rows the GPU
 * replaced with spare rows after memory errors. A pending remap takes effect at the next GPU reset; a failed
 * one means the GPU ran out of spare rows for a bank, and NVIDIA advises a field diagnosis.
 *
 * @param correctableRows   rows remapped because of correctable errors, since the device was made
 * @param uncorrectableRows rows remapped because of uncorrectable errors
 * @param pending           whether a remap waits for the next GPU reset
 * @param failed            whether a remap has failed
 */
public record RemappedRows(long correctableRows, long uncorrectableRows, boolean pending, boolean failed) {
    /** Checks that the counts are not negative. */
    public RemappedRows {
        if (correctableRows < 0 || uncorrectableRows < 0) {
            throw new IllegalArgumentException("remapped row counts must not be negative: " + correctableRows
                    + ", " + uncorrectableRows);
        }
    }
}
