package io.github.procscope.benchmarks;

import java.lang.management.ManagementFactory;
import java.lang.instrument.Instrumentation;
import java.lang.reflect.Array;
import java.lang.reflect.Field;
import java.lang.reflect.InaccessibleObjectException;
import java.lang.reflect.Modifier;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

import com.sun.management.HotSpotDiagnosticMXBean;

/**
 * The heap bytes of an object graph: every object reachable from a root through instance fields and array
 * elements, each counted once. Sizes are exact ({@link Instrumentation#getObjectSize}) when
 * {@link SizeAgent} is loaded, otherwise computed from the VM's header, reference and alignment sizes and
 * each class's declared fields (HotSpot packs fields so that this matches but for rare padding).
 *
 * <p>{@link #fresh(Object, Object)} measures what a call newly allocated and returned: the bytes reachable
 * from its result that are not reachable from an earlier result of the same call, so that shared constants
 * and caches (enum constants, {@code Optional.empty()}, cached user names) are not counted.
 *
 * <p>Walking JDK objects reads private fields: the JVM must open {@code java.lang}, {@code java.util} and
 * {@code java.time} to this code ({@code --add-opens java.base/java.lang=ALL-UNNAMED} and so on).
 */
final class RetainedSize {
    private static final Map<Class<?>, Field[]> FIELDS = new ConcurrentHashMap<>();
    private static final Map<Class<?>, Long> SHALLOW = new ConcurrentHashMap<>();
    private static final Layout LAYOUT = Layout.ofThisVm();

    private RetainedSize() {
    }

    /** @return how sizes are obtained: "Instrumentation.getObjectSize" or "field layout" */
    static String method() {
        return SizeAgent.instrumentation() != null ? "Instrumentation.getObjectSize" : "field layout";
    }

    /**
     * @param root an object
     * @return the bytes of every object reachable from it, each counted once
     */
    static long of(Object root) {
        long total = 0;
        for (Object o : reachable(root)) {
            total += sizeOf(o);
        }
        return total;
    }

    /**
     * @param earlier an earlier result of the same call
     * @param later   a later result
     * @return the bytes reachable from {@code later} and not from {@code earlier}
     */
    static long fresh(Object earlier, Object later) {
        Set<Object> old = reachable(earlier);
        long total = 0;
        for (Object o : reachable(later)) {
            if (!old.contains(o)) {
                total += sizeOf(o);
            }
        }
        return total;
    }

    private static Set<Object> reachable(Object root) {
        Set<Object> seen = Collections.newSetFromMap(new IdentityHashMap<>());
        ArrayDeque<Object> todo = new ArrayDeque<>();
        todo.add(root);
        seen.add(root);
        while (!todo.isEmpty()) {
            Object o = todo.poll();
            Class<?> c = o.getClass();
            if (c.isArray()) {
                if (!c.getComponentType().isPrimitive()) {
                    for (int i = 0, n = Array.getLength(o); i < n; i++) {
                        Object e = Array.get(o, i);
                        if (e != null && seen.add(e)) {
                            todo.add(e);
                        }
                    }
                }
                continue;
            }
            if (c == Class.class) {
                continue;
            }
            for (Field f : referenceFields(c)) {
                Object e;
                try {
                    e = f.get(o);
                } catch (IllegalAccessException ex) {
                    throw new IllegalStateException(ex);
                }
                if (e != null && seen.add(e)) {
                    todo.add(e);
                }
            }
        }
        return seen;
    }

    private static Field[] referenceFields(Class<?> c) {
        return FIELDS.computeIfAbsent(c, k -> {
            List<Field> out = new ArrayList<>();
            for (Class<?> t = k; t != null; t = t.getSuperclass()) {
                for (Field f : t.getDeclaredFields()) {
                    if (Modifier.isStatic(f.getModifiers()) || f.getType().isPrimitive()) {
                        continue;
                    }
                    try {
                        f.setAccessible(true);
                    } catch (InaccessibleObjectException e) {
                        throw new IllegalStateException("cannot read " + f + ": start the JVM with --add-opens "
                                + t.getModule().getName() + "/" + t.getPackageName() + "=ALL-UNNAMED", e);
                    }
                    out.add(f);
                }
            }
            return out.toArray(new Field[0]);
        });
    }

    static long sizeOf(Object o) {
        Instrumentation inst = SizeAgent.instrumentation();
        if (inst != null) {
            return inst.getObjectSize(o);
        }
        Class<?> c = o.getClass();
        if (c.isArray()) {
            int n = Array.getLength(o);
            Class<?> e = c.getComponentType();
            long each = e.isPrimitive() ? primitiveSize(e) : LAYOUT.reference();
            return LAYOUT.align(LAYOUT.arrayHeader() + each * n);
        }
        return SHALLOW.computeIfAbsent(c, k -> {
            long bytes = LAYOUT.objectHeader();
            for (Class<?> t = k; t != null; t = t.getSuperclass()) {
                for (Field f : t.getDeclaredFields()) {
                    if (!Modifier.isStatic(f.getModifiers())) {
                        bytes += f.getType().isPrimitive() ? primitiveSize(f.getType()) : LAYOUT.reference();
                    }
                }
            }
            return LAYOUT.align(bytes);
        });
    }

    private static long primitiveSize(Class<?> p) {
        if (p == long.class || p == double.class) {
            return 8;
        }
        if (p == int.class || p == float.class) {
            return 4;
        }
        if (p == short.class || p == char.class) {
            return 2;
        }
        return 1;
    }

    /** The VM's object layout constants. */
    record Layout(long objectHeader, long arrayHeader, long reference, long alignment) {
        static Layout ofThisVm() {
            boolean compressedOops = true;
            boolean compressedClass = true;
            long alignment = 8;
            try {
                HotSpotDiagnosticMXBean hs = ManagementFactory.getPlatformMXBean(HotSpotDiagnosticMXBean.class);
                compressedOops = Boolean.parseBoolean(hs.getVMOption("UseCompressedOops").getValue());
                compressedClass = Boolean.parseBoolean(hs.getVMOption("UseCompressedClassPointers").getValue());
                alignment = Long.parseLong(hs.getVMOption("ObjectAlignmentInBytes").getValue());
            } catch (RuntimeException e) {
                // not HotSpot: keep the common 64-bit defaults
            }
            long header = compressedClass ? 12 : 16;
            return new Layout(header, header + 4, compressedOops ? 4 : 8, alignment);
        }

        long align(long bytes) {
            return (bytes + alignment - 1) / alignment * alignment;
        }
    }
}
