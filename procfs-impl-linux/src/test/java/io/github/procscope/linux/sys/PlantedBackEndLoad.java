package io.github.procscope.linux.sys;

/**
 * A planted violation for {@code ArchitectureTest}: a class beside the chooser that loads a back end of the
 * wall itself. Never called.
 */
final class PlantedBackEndLoad {
    private PlantedBackEndLoad() {
    }

    static NativeWall ownWall() {
        return JnrWall.load(true);
    }
}
