package io.github.procscope.linux;

/**
 * A planted violation for {@code ArchitectureTest}: a class in the root package, which must hold none. It exists
 * only in the test sources, so that the rule is shown to fail on it.
 */
final class PlantedRootClass {
    private PlantedRootClass() {
    }
}
