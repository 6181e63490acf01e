package io.github.procscope.api;

import io.github.procscope.api.core.DeviceNumber;
import io.github.procscope.api.core.ProcessKey;
import io.github.procscope.api.process.ProcessSnapshot;
import io.github.procscope.api.process.ProcessTree;
import io.github.procscope.api.signals.Signal;
import io.github.procscope.api.signals.SignalSet;
import com.google.common.testing.ClassSanityTester;
import com.google.common.testing.EqualsTester;
import com.google.common.testing.NullPointerTester;
import io.github.procscope.api.diagnose.Evidence;
import io.github.procscope.api.signals.ExitStatus;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.reflect.Modifier;
import java.lang.reflect.RecordComponent;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalDouble;
import java.util.OptionalInt;
import java.util.OptionalLong;
import java.util.Set;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Guava's testers over every public type of the API, found by listing the compiled classes (so that a
 * new type is covered without being named here): no public constructor or static method accepts a null,
 * every public record refuses nulls in its components and methods, and a hand-written {@code equals}
 * is a value equality.
 */
class PublicApiSanityTest {

    @TestFactory
    Stream<DynamicTest> noPublicConstructorOrStaticMethodAcceptsNull() {
        return publicTypes().stream().map(c -> DynamicTest.dynamicTest(c.getName(), () -> {
            NullPointerTester t = tester();
            t.testAllPublicConstructors(c);
            t.testAllPublicStaticMethods(c);
        }));
    }

    @TestFactory
    Stream<DynamicTest> everyRecordRefusesNullsInItsComponentsAndMethods() {
        return publicTypes().stream().filter(Class::isRecord)
                .map(c -> DynamicTest.dynamicTest(c.getName(), () -> {
                    if (c == io.github.procscope.api.job.JobSpec.class) {
                        // No default value makes a valid job (it needs a program name): its constructor and
                        // factories are covered above, its instance methods on a valid instance here.
                        tester().testAllPublicInstanceMethods(io.github.procscope.api.job.JobSpec.of(List.of("true")));
                    } else {
                        sanity().testNulls(c);
                    }
                }));
    }

    /** Records get component-wise equality from the compiler; a class that writes its own is checked. */
    @TestFactory
    Stream<DynamicTest> everyHandWrittenEqualsIsAValueEquality() {
        return publicTypes().stream().filter(c -> !c.isRecord() && !c.isInterface() && !c.isEnum()
                        && !Modifier.isAbstract(c.getModifiers()) && declaresEquals(c))
                .map(c -> DynamicTest.dynamicTest(c.getName(), () -> sanity().testEquals(c)));
    }

    @Test
    void signalSetsAreEqualByTheirMembers() {
        new EqualsTester()
                .addEqualityGroup(SignalSet.of(Signal.TERM, Signal.KILL), SignalSet.of(Signal.KILL, Signal.TERM))
                .addEqualityGroup(SignalSet.empty(), SignalSet.of())
                .addEqualityGroup(SignalSet.of(Signal.of(64)))
                .testEquals();
    }

    private static boolean declaresEquals(Class<?> c) {
        try {
            c.getDeclaredMethod("equals", Object.class);
            return true;
        } catch (NoSuchMethodException e) {
            return false;
        }
    }

    @Test
    void theListingFindsTheWholeApi() {
        List<Class<?>> types = publicTypes();
        assertTrue(types.contains(ProcessKey.class), types.toString());
        assertTrue(types.contains(Evidence.Zombies.class), types.toString());
        assertTrue(types.contains(io.github.procscope.api.signals.ExitStatus.Killed.class), types.toString());
        assertTrue(types.size() > 100, "only " + types.size() + " public types found");
    }

    private static NullPointerTester tester() {
        NullPointerTester t = new NullPointerTester();
        // In-range values, so that a method reaches its null checks instead of refusing pid 0 first.
        t.setDefault(long.class, 1L);
        t.setDefault(int.class, 1);
        t.setDefault(ProcessKey.class, new ProcessKey(1, 1));
        t.setDefault(Signal.class, Signal.TERM);
        t.setDefault(SignalSet.class, SignalSet.of(Signal.TERM));
        t.setDefault(DeviceNumber.class, new DeviceNumber(8, 1));
        t.setDefault(Evidence.class, ZOMBIES);
        t.setDefault(ExitStatus.class, ExitStatus.exited(0));
        t.setDefault(ProcessSnapshot.class, new ProcessSnapshot(Instant.EPOCH, Duration.ofSeconds(1), Set.of(), List.of()));
        t.setDefault(ProcessTree.class, ProcessTree.of(List.of()));
        for (Class<?> c : publicTypes()) {
            if (c.isRecord()) {
                Object sample = sample(c, 0);
                if (sample != null) {
                    setDefault(t, c, sample);
                }
            }
        }
        return t;
    }

    @SuppressWarnings("unchecked")
    private static <T> void setDefault(ClassSanityTester t, Class<T> c, Object v) {
        t.setDefault(c, (T) v);
    }

    @SuppressWarnings("unchecked")
    private static <T> void setDefault(NullPointerTester t, Class<T> c, Object v) {
        t.setDefault(c, (T) v);
    }

    /**
     * @return a record built through its canonical constructor from plain values (1, "x", empty optionals
     *         and collections, the first enum constant, samples of nested records), or null when its
     *         validation refuses them
     */
    private static Object sample(Class<?> c, int depth) {
        if (depth > 4) {
            return null;
        }
        RecordComponent[] rc = c.getRecordComponents();
        Class<?>[] types = Arrays.stream(rc).map(RecordComponent::getType).toArray(Class<?>[]::new);
        Object[] args = new Object[rc.length];
        for (int i = 0; i < rc.length; i++) {
            args[i] = plain(types[i], depth);
            if (args[i] == null) {
                return null;
            }
        }
        try {
            return c.getDeclaredConstructor(types).newInstance(args);
        } catch (ReflectiveOperationException | RuntimeException e) {
            return null;
        }
    }

    private static Object plain(Class<?> type, int depth) {
        if (type == long.class) {
            return 1L;
        } else if (type == int.class) {
            return 1;
        } else if (type == double.class) {
            return 1.0;
        } else if (type == boolean.class) {
            return false;
        } else if (type == char.class) {
            return 'R';
        } else if (type == String.class) {
            return "x";
        } else if (type == Optional.class) {
            return Optional.empty();
        } else if (type == OptionalLong.class) {
            return OptionalLong.empty();
        } else if (type == OptionalInt.class) {
            return OptionalInt.empty();
        } else if (type == OptionalDouble.class) {
            return OptionalDouble.empty();
        } else if (type == List.class) {
            return List.of();
        } else if (type == Set.class) {
            return Set.of();
        } else if (type == Map.class) {
            return Map.of();
        } else if (type == Duration.class) {
            return Duration.ofSeconds(1);
        } else if (type == Instant.class) {
            return Instant.EPOCH;
        } else if (type == Path.class) {
            return Path.of("/");
        } else if (type == Signal.class) {
            return Signal.TERM;
        } else if (type == SignalSet.class) {
            return SignalSet.empty();
        } else if (type == Evidence.class) {
            return ZOMBIES;
        } else if (type == ExitStatus.class) {
            return ExitStatus.exited(0);
        } else if (type.isEnum()) {
            return type.getEnumConstants()[0];
        } else if (type.isRecord()) {
            return sample(type, depth + 1);
        }
        return null;
    }

    private static final Evidence ZOMBIES = new Evidence.Zombies(1, "init", List.of(2L), List.of("sh"));

    private static ClassSanityTester sanity() {
        ClassSanityTester t = new ClassSanityTester();
        t.setDefault(long.class, 1L);
        t.setDefault(int.class, 1);
        t.setDefault(Evidence.class, ZOMBIES);
        t.setDefault(ExitStatus.class, ExitStatus.exited(0));
        // Every public record of the API that can be built from plain values, as a sample for the others.
        for (Class<?> c : publicTypes()) {
            if (c.isRecord()) {
                Object sample = sample(c, 0);
                if (sample != null) {
                    setDefault(t, c, sample);
                }
            }
        }
        t.setDistinctValues(ProcessKey.class, new ProcessKey(1, 1), new ProcessKey(2, 2));
        t.setDistinctValues(Signal.class, Signal.TERM, Signal.KILL);
        t.setDistinctValues(SignalSet.class, SignalSet.of(Signal.TERM), SignalSet.of(Signal.KILL));
        t.setDistinctValues(DeviceNumber.class, new DeviceNumber(8, 1), new DeviceNumber(8, 2));
        t.setDistinctValues(Duration.class, Duration.ofSeconds(1), Duration.ofSeconds(2));
        return t;
    }

    /** @return every public class, interface, record and enum of the API, nested ones included */
    static List<Class<?>> publicTypes() {
        Path root;
        try {
            root = Path.of(ProcessKey.class.getProtectionDomain().getCodeSource().getLocation().toURI());
        } catch (URISyntaxException e) {
            throw new IllegalStateException(e);
        }
        List<Class<?>> out = new ArrayList<>();
        try (Stream<Path> files = Files.walk(root)) {
            for (Path f : (Iterable<Path>) files.filter(p -> p.toString().endsWith(".class"))::iterator) {
                String name = root.relativize(f).toString().replace('/', '.').replaceAll("\\.class$", "");
                if (name.endsWith("package-info") || name.equals("module-info")) {
                    continue;
                }
                Class<?> c = Class.forName(name, false, PublicApiSanityTest.class.getClassLoader());
                if (isPublic(c) && !c.isAnonymousClass() && !c.isSynthetic()) {
                    out.add(c);
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (ClassNotFoundException e) {
            throw new IllegalStateException(e);
        }
        out.sort(Comparator.comparing(Class::getName));
        return out;
    }

    private static boolean isPublic(Class<?> c) {
        for (Class<?> k = c; k != null; k = k.getEnclosingClass()) {
            if (!Modifier.isPublic(k.getModifiers())) {
                return false;
            }
        }
        return true;
    }
}
