package io.github.procscope.linux.sys;

import io.github.procscope.api.Procscope;
import io.github.procscope.api.core.NativeUnavailableException;

import java.util.Locale;
import java.util.Set;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Chooses and loads the back end of the {@link NativeWall}, once per JVM, on first use: {@code FfmWall} on a
 * JDK 22 or newer, {@link JnrWall} before; the system property {@value NativeWall#BACKEND_PROPERTY}
 * ({@code ffm} or {@code jnr}) forces one. {@code FfmWall} is compiled for release 22 and reached only
 * by name here ({@link Class#forName}, after which it registers its {@link FfmFactory}), so a JDK 17 never
 * loads it. A loading failure is remembered and reported on every later use. Thread-safe.
 */
public final class NativeWalls {
    static final String FFM = "ffm";
    static final String JNR = "jnr";

    private static final Set<String> UNIFIED_SYSCALL_ARCHES = Set.of("amd64", "x86_64", "aarch64", "riscv64",
            "ppc64le", "ppc64", "s390x", "loongarch64");

    private static final Object LOCK = new Object();
    private static volatile Object state;
    private static final AtomicBoolean STARTED = new AtomicBoolean();
    private static volatile FfmFactory ffmFactory;

    private NativeWalls() {
    }

    /**
     * @return the back end this JVM uses: the property's value if set, else {@code ffm} on JDK 22+ when this
     *         build has it (a build made without a JDK 22+ compiler has not), {@code jnr} otherwise
     * @throws IllegalArgumentException if the property names no back end
     */
    static String chosen() {
        String forced = System.getProperty(NativeWall.BACKEND_PROPERTY, "").trim().toLowerCase(Locale.ROOT);
        if (forced.isEmpty()) {
            return Runtime.version().feature() >= 22 && ffmBuilt() ? FFM : JNR;
        }
        if (!forced.equals(FFM) && !forced.equals(JNR)) {
            throw new IllegalArgumentException("-D" + NativeWall.BACKEND_PROPERTY + "=" + forced
                    + " names no native back end; use ffm (JDK 22+) or jnr");
        }
        return forced;
    }

    /** @return whether this build holds the FFM back end's classes (looked up, not loaded) */
    static boolean ffmBuilt() {
        ClassLoader loader = NativeWalls.class.getClassLoader();
        return loader != null && loader.getResource("io/github/procscope/linux/sys/FfmWall.class") != null;
    }

    /**
     * @param call the call the caller needs, for the message
     * @return the wall of this JVM, loading it now if needed
     * @throws NativeUnavailableException if it cannot be loaded here
     */
    public static NativeWall get(String call) {
        Object s = state;
        if (s == null) {
            synchronized (LOCK) {
                STARTED.set(true);
                if (state == null) {
                    state = loadChosen();
                }
                s = state;
            }
        }
        if (s instanceof NativeWall) {
            return (NativeWall) s;
        }
        RuntimeException failure = (RuntimeException) s;
        throw new NativeUnavailableException(call, failure.getMessage(), failure.getCause());
    }

    /** @return the wall if it has been loaded, else {@code null} (not yet, or it cannot be loaded here) */
    static NativeWall ifLoaded() {
        Object s = state;
        return s instanceof NativeWall ? (NativeWall) s : null;
    }

    /** Starts loading the wall on a daemon thread, once per JVM; returns at once. */
    static void startLoading() {
        if (state == null && STARTED.compareAndSet(false, true)) {
            Thread t = new Thread(() -> {
                try {
                    get("load");
                } catch (RuntimeException e) {
                    // remembered in state; the callers read through the JDK
                }
            }, "procscope-native-loader");
            t.setDaemon(true);
            t.start();
        }
    }

    private static Object loadChosen() {
        try {
            return load(chosen());
        } catch (RuntimeException e) {
            return e;
        }
    }

    /**
     * Loads a back end afresh, apart from the one this JVM uses (for tests that hold both to the same
     * results).
     *
     * @param name {@code ffm} or {@code jnr}
     * @throws IllegalStateException naming the cause if it cannot be loaded here
     */
    static NativeWall load(String name) {
        String os = System.getProperty("os.name", "").toLowerCase(Locale.ROOT);
        if (!os.contains("linux")) {
            throw new IllegalStateException("procscope's native calls need Linux; this JVM runs on "
                    + System.getProperty("os.name"));
        }
        if (!"64".equals(System.getProperty("sun.arch.data.model"))) {
            throw new IllegalStateException("procscope supports 64-bit JVMs only (this one is "
                    + System.getProperty("sun.arch.data.model") + "-bit)");
        }
        boolean pidfd = UNIFIED_SYSCALL_ARCHES.contains(System.getProperty("os.arch", "").toLowerCase(Locale.ROOT));
        if (JNR.equals(name)) {
            return JnrWall.load(pidfd);
        }
        if (!FFM.equals(name)) {
            throw new IllegalArgumentException("no native back end named " + name);
        }
        if (Runtime.version().feature() < 22) {
            throw new IllegalStateException("the ffm native back end needs JDK 22 or newer; this is JDK "
                    + Runtime.version().feature() + " (use -D" + NativeWall.BACKEND_PROPERTY + "=jnr)");
        }
        try {
            // Initialising the class registers its factory (FfmWall's static initialiser): a plain call from then
            // on. A reflective call would do as well, but its first use on JDK 22+ (reflection through method
            // handles) spins classes that a first Procscope.system().signals() would wait for.
            Class.forName("io.github.procscope.linux.sys.FfmWall", true, NativeWalls.class.getClassLoader());
        } catch (ClassNotFoundException | LinkageError e) {
            throw new IllegalStateException("this build of procscope has no ffm native back end (" + e
                    + "); it was compiled without a JDK 22+ compiler. Use -D" + NativeWall.BACKEND_PROPERTY
                    + "=jnr", e);
        }
        FfmFactory f = ffmFactory;
        if (f == null) {
            throw new IllegalStateException("the ffm native back end did not register itself");
        }
        return f.load(pidfd);
    }

    /** Makes the FFM back end; the one implementation is registered by {@code FfmWall} when it is initialised. */
    interface FfmFactory {
        /**
         * @param pidfdPossible whether pidfd system calls have the numbers this JVM's architecture shares
         * @return the wall
         */
        NativeWall load(boolean pidfdPossible);
    }

    /**
     * Called once, by {@code FfmWall}'s static initialiser.
     *
     * @param factory how the FFM back end is made
     */
    static void registerFfm(FfmFactory factory) {
        ffmFactory = factory;
    }

    /**
     * @return the length of a C path: the index of its first NUL
     * @throws IllegalArgumentException if it holds no NUL
     */
    static int checkPath(byte[] path) {
        for (int i = 0; i < path.length; i++) {
            if (path[i] == 0) {
                return i;
            }
        }
        throw new IllegalArgumentException("a native path must end with NUL (use NativeWall.path)");
    }
}
