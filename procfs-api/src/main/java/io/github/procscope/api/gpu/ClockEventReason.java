package io.github.procscope.api.gpu;

import java.util.Collections;
import java.util.EnumSet;
import java.util.Set;

/**
 * Why the GPU's clocks are below their maximum: the bits of {@code nvmlClocksEventReasons} in
 * {@code nvml.h} (formerly "clock throttle reasons"), from {@code nvmlDeviceGetCurrentClocksEventReasons}
 * or, on older drivers, {@code nvmlDeviceGetCurrentClocksThrottleReasons}. A hot GPU shows
 * {@link #SW_THERMAL_SLOWDOWN} or {@link #HW_THERMAL_SLOWDOWN} and runs slower.
 */
public enum ClockEventReason {
    /** {@code 0x1}: nothing is running; the clocks are dropping to idle. */
    GPU_IDLE(0x1L),
    /** {@code 0x2}: clocks are set to application-specific values (deprecated by NVIDIA). */
    APPLICATIONS_CLOCKS_SETTING(0x2L),
    /** {@code 0x4}: the software power cap keeps power draw under the limit. */
    SW_POWER_CAP(0x4L),
    /** {@code 0x8}: hardware slowdown (clocks cut by half or more): heat, power brake or power spikes. */
    HW_SLOWDOWN(0x8L),
    /** {@code 0x10}: the GPU is in a sync boost group and runs at the group's clocks. */
    SYNC_BOOST(0x10L),
    /** {@code 0x20}: software thermal slowdown keeps GPU or memory under their maximum temperature. */
    SW_THERMAL_SLOWDOWN(0x20L),
    /** {@code 0x40}: hardware thermal slowdown: the GPU is too hot. */
    HW_THERMAL_SLOWDOWN(0x40L),
    /** {@code 0x80}: hardware power brake slowdown, asserted by the system's power supply. */
    HW_POWER_BRAKE_SLOWDOWN(0x80L),
    /** {@code 0x100}: clocks are limited by the display clock setting. */
    DISPLAY_CLOCK_SETTING(0x100L);

    private final long bit;

    ClockEventReason(long bit) {
        this.bit = bit;
    }

    /** {@return the bit in {@code nvml.h}} */
    public long bit() {
        return bit;
    }

    /**
     * {@return the reasons whose bits are set; bits this version does not know are left out (the mask itself
     * keeps them)}
     *
     * @param mask a mask returned by NVML
     */
    public static Set<ClockEventReason> fromMask(long mask) {
        EnumSet<ClockEventReason> out = EnumSet.noneOf(ClockEventReason.class);
        for (ClockEventReason r : values()) {
            if ((mask & r.bit) != 0) {
                out.add(r);
            }
        }
        return Collections.unmodifiableSet(out);
    }
}
