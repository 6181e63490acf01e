/**
 * The Linux platform of procscope: a consumer requires this module and reaches everything through
 * {@link io.github.procscope.api.Procscope}. No package of it is API.
 */
@SuppressWarnings("requires-automatic")
module io.github.procscope.linux {
    requires transitive io.github.procscope.api;
    // The preemption guard installs its handlers through sun.misc.Signal, and tells -Xrs through HotSpot's MXBean.
    requires jdk.unsupported;
    requires java.management;
    requires jdk.management;
    requires org.jnrproject.posix;
    requires org.jnrproject.ffi;
    requires org.jnrproject.constants;
    requires org.jnrproject.jffi;
    // jnr-ffi is an automatic module: it cannot name its own dependencies, and ASM's jars are explicit
    // modules, which nothing would resolve. Requiring them here puts them in the module graph, where
    // jnr-ffi (reading every resolved module) finds them when it generates its native stubs.
    requires org.objectweb.asm;
    requires org.objectweb.asm.commons;
    requires org.objectweb.asm.tree;
    requires org.objectweb.asm.tree.analysis;
    requires org.objectweb.asm.util;

    // Not API: jnr-ffi defines the classes that implement the native-call interface of WallLibC in an
    // unnamed module of a class loader of its own, and those classes must see the interfaces. A qualified
    // export cannot name an unnamed module, so the package is exported to all; nothing in it is supported
    // for use outside this module.
    exports io.github.procscope.linux.sys.internal;

    provides io.github.procscope.api.PlatformProvider with io.github.procscope.linux.platform.LinuxPlatform;
}
