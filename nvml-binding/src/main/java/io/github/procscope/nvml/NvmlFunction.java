package io.github.procscope.nvml;

import io.github.procscope.api.gpu.NvmlException;
import io.github.procscope.api.gpu.NvmlReturn;

import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Predicate;

/**
 * A typed handle on one NVML function family, resolved once when the library is loaded: of the family's
 * symbols ({@code nvmlDeviceGetComputeRunningProcesses_v3}, {@code _v2}, the unversioned one), the newest
 * that the library exports, with a call of type {@code F} bound to it. A family groups symbols that share
 * one C signature; the {@linkplain #version() version} tells the caller which structure layout the chosen
 * symbol reads or writes. When the library exports none of them the handle is absent, and calling it
 * raises {@code NVML_ERROR_FUNCTION_NOT_FOUND} ("not supported by this driver"), as NVML itself does for a
 * function it does not implement. Immutable.
 *
 * @param <F> the call's type: a functional interface with the family's C signature
 */
final class NvmlFunction<F> {
    private final String family;
    private final List<String> candidates;
    private final String symbol;
    private final int version;
    private final F call;
    private final NvmlFunction<F> older;

    private NvmlFunction(String family, List<String> candidates, String symbol, int version, F call,
                         NvmlFunction<F> older) {
        this.family = family;
        this.candidates = candidates;
        this.symbol = symbol;
        this.version = version;
        this.call = call;
        this.older = older;
    }

    /**
     * One symbol of a family.
     *
     * @param symbol  the exported name
     * @param version its version: the {@code _vN} suffix, 1 for an unsuffixed name; a renamed successor
     *                (clock event reasons after throttle reasons) counts as the next version
     * @param call    the raw binding's method for it
     * @param <F>     the call's type
     */
    record Candidate<F>(String symbol, int version, F call) {
        Candidate {
            Objects.requireNonNull(symbol, "symbol");
            Objects.requireNonNull(call, "call");
            if (version < 1) {
                throw new IllegalArgumentException("version must be at least 1: " + version);
            }
        }
    }

    /**
     * Resolves a family.
     *
     * @param family      the family's name, for messages (the unversioned C name)
     * @param newestFirst its symbols, newest first
     * @param exported    whether the library exports a symbol
     * @return the handle on the newest exported symbol, with the older exported ones behind it
     */
    static <F> NvmlFunction<F> resolve(String family, List<Candidate<F>> newestFirst, Predicate<String> exported) {
        List<String> names = newestFirst.stream().map(Candidate::symbol).toList();
        NvmlFunction<F> chain = new NvmlFunction<>(family, names, null, 0, null, null);
        for (int i = newestFirst.size() - 1; i >= 0; i--) {
            Candidate<F> c = newestFirst.get(i);
            if (i + 1 < newestFirst.size() && newestFirst.get(i + 1).version() >= c.version()) {
                throw new IllegalArgumentException(family + ": candidates must be listed newest first");
            }
            if (exported.test(c.symbol())) {
                chain = new NvmlFunction<>(family, names, c.symbol(), c.version(), c.call(), chain);
            }
        }
        return chain;
    }

    /** @return the family's name, such as {@code nvmlDeviceGetComputeRunningProcesses} */
    String family() {
        return family;
    }

    /** @return every symbol of the family, newest first, exported or not */
    List<String> candidates() {
        return candidates;
    }

    /** @return whether the library exports a symbol of this family */
    boolean isPresent() {
        return symbol != null;
    }

    /** @return the symbol chosen; empty when the library exports none */
    Optional<String> symbol() {
        return Optional.ofNullable(symbol);
    }

    /** @return the chosen symbol's version; 0 when absent */
    int version() {
        return version;
    }

    /** @return the symbol to name in messages: the chosen one, or the family's newest */
    String name() {
        return symbol != null ? symbol : candidates.get(0);
    }

    /**
     * @return the call bound to the chosen symbol
     * @throws NvmlException with {@code NVML_ERROR_FUNCTION_NOT_FOUND} when the library exports none
     */
    F call() {
        if (call == null) {
            throw notSupported();
        }
        return call;
    }

    /**
     * @return the next older symbol of the family that the library exports (for a driver that exports a
     *         newer symbol but refuses its structure version); absent when there is none
     */
    NvmlFunction<F> older() {
        return older != null ? older : new NvmlFunction<>(family, candidates, null, 0, null, null);
    }

    /** @return the error a call of an absent family raises */
    NvmlException notSupported() {
        return new NvmlException(name(), NvmlReturn.FUNCTION_NOT_FOUND.code(), "not supported by this driver: its"
                + " NVML library exports none of " + String.join(", ", candidates), Optional.empty());
    }

    @Override
    public String toString() {
        return symbol != null ? symbol + " (version " + version + ")" : family + " (absent)";
    }
}
