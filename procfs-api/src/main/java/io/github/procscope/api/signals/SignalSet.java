package io.github.procscope.api.signals;

import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.List;
import java.util.Objects;

/**
 * An immutable set of signals, as the kernel keeps it: a 64-bit mask in which bit {@code n - 1} stands
 * for signal {@code n}. This is how {@code /proc/PID/status} prints the pending, blocked, ignored and
 * caught signals ({@code SigIgn: 0000000000001001} means HUP and PIPE are ignored).
 */
public final class SignalSet {
    private static final SignalSet EMPTY = new SignalSet(0L);

    private final long mask;

    private SignalSet(long mask) {
        this.mask = mask;
    }

    /** {@return the empty set} */
    public static SignalSet empty() {
        return EMPTY;
    }

    /**
     * {@return the set of those signals}
     *
     * @param mask a kernel signal mask: bit {@code n - 1} set for signal {@code n}
     */
    public static SignalSet fromMask(long mask) {
        return mask == 0 ? EMPTY : new SignalSet(mask);
    }

    /**
     * Parses a mask as {@code /proc/PID/status} prints it: up to 16 hexadecimal digits.
     *
     * @param hex the mask in hexadecimal, without {@code 0x}
     * @return the set
     * @throws IllegalArgumentException if the text is not 1 to 16 hexadecimal digits
     */
    public static SignalSet parseKernelMask(String hex) {
        Objects.requireNonNull(hex, "hex");
        if (hex.isEmpty() || hex.length() > 16) {
            throw new IllegalArgumentException("a kernel signal mask is 1 to 16 hexadecimal digits, not \"" + hex + "\"");
        }
        long m = 0;
        for (int i = 0; i < hex.length(); i++) {
            int d = Character.digit(hex.charAt(i), 16);
            if (d < 0) {
                throw new IllegalArgumentException("not a hexadecimal signal mask: \"" + hex + "\"");
            }
            m = (m << 4) | d;
        }
        return fromMask(m);
    }

    /**
     * {@return the set of them}
     *
     * @param signals the members
     */
    public static SignalSet of(Signal... signals) {
        return of(List.of(signals));
    }

    /**
     * {@return the set of them}
     *
     * @param signals the members
     */
    public static SignalSet of(Collection<Signal> signals) {
        long m = 0;
        for (Signal s : signals) {
            m |= bit(s);
        }
        return fromMask(m);
    }

    private static long bit(Signal s) {
        return 1L << (s.number() - 1);
    }

    /** {@return the kernel mask: bit {@code n - 1} set for signal {@code n}} */
    public long mask() {
        return mask;
    }

    /**
     * {@return whether it is in the set}
     *
     * @param signal a signal
     */
    public boolean contains(Signal signal) {
        return (mask & bit(signal)) != 0;
    }

    /** {@return whether the set is empty} */
    public boolean isEmpty() {
        return mask == 0;
    }

    /** {@return the number of signals in the set} */
    public int size() {
        return Long.bitCount(mask);
    }

    /** {@return the members, in ascending order of number} */
    public List<Signal> signals() {
        if (mask == 0) {
            return List.of();
        }
        List<Signal> out = new ArrayList<>(size());
        long m = mask;
        while (m != 0) {
            int n = Long.numberOfTrailingZeros(m) + 1;
            out.add(Signal.of(n));
            m &= m - 1;
        }
        return Collections.unmodifiableList(out);
    }

    /** {@return the members' names without the {@code SIG} prefix, in ascending order ({@code ["HUP", "PIPE"]})} */
    public List<String> names() {
        List<Signal> s = signals();
        List<String> out = new ArrayList<>(s.size());
        for (Signal sig : s) {
            out.add(sig.name());
        }
        return Collections.unmodifiableList(out);
    }

    /**
     * {@return the signals in either set}
     *
     * @param other another set
     */
    public SignalSet union(SignalSet other) {
        return fromMask(mask | other.mask);
    }

    /**
     * {@return the signals in both sets}
     *
     * @param other another set
     */
    public SignalSet intersection(SignalSet other) {
        return fromMask(mask & other.mask);
    }

    /** {@return the mask as {@code /proc/PID/status} prints it: 16 hexadecimal digits} */
    public String toKernelMask() {
        return String.format("%016x", mask);
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof SignalSet && ((SignalSet) o).mask == mask;
    }

    @Override
    public int hashCode() {
        return Long.hashCode(mask);
    }

    /** {@return the members' names, such as {@code [HUP, PIPE]}} */
    @Override
    public String toString() {
        return names().toString();
    }
}
