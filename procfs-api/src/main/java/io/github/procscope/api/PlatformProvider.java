package io.github.procscope.api;


import java.nio.file.Path;

/**
 * The one platform service: registered in {@code META-INF/services/io.github.procscope.api.PlatformProvider}
 * (or with {@code provides} in a module descriptor) by an implementation module ({@code procfs-impl-linux});
 * {@link Procscope#system()} and {@link Procscope#at(Path, Path)} use the first one found.
 */
public interface PlatformProvider {
    /**
     * {@return the readers under those roots; reads nothing yet (each accessor checks its root when first
     * called)}
     *
     * @param procfsRoot a procfs mount, or a tree with the same layout
     * @param sysfsRoot  a sysfs mount, or a tree with the same layout
     */
    Procscope open(Path procfsRoot, Path sysfsRoot);
}
