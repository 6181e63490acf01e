package io.github.procscope.cli;

import com.fasterxml.jackson.databind.JsonNode;

import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.lang.reflect.ParameterizedType;
import java.lang.reflect.Type;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.Supplier;

/**
 * The rule of the tool's JSON, checked by reflection: a field is named as an accessor of the API type its value
 * comes from (a record component or a public method; {@code isX()} as {@code x}, as Jackson names it; a
 * {@code Duration x()} as {@code xSeconds}; {@code Throwable.getMessage()} as {@code message}), and a field whose
 * accessor returns an enum holds one of its constants' names. A shape ({@link #of}) names the types one JSON object
 * is made from, the few fields that are the tool's own (counts and groupings with no accessor, each listed), and
 * the shapes of its nested objects. Every component of a record among the sources is a field of the object,
 * unless the shape lists it as omitted with the reason ({@link #omits}): a component the API gains and the JSON
 * lacks fails the check.
 */
final class JsonNames {
    private final List<Class<?>> sources = new ArrayList<>();
    private final Set<String> toolFields = new LinkedHashSet<>();
    private final Set<String> maps = new LinkedHashSet<>();
    private final Set<String> opaque = new LinkedHashSet<>();
    private final Map<String, Supplier<JsonNames>> nested = new LinkedHashMap<>();
    /** The components of record sources the object leaves out, each with its reason. */
    private final Map<Class<?>, Map<String, String>> carried = new LinkedHashMap<>();

    private JsonNames(Class<?>... sources) {
        this.sources.addAll(Arrays.asList(sources));
    }

    /** @return this shape with more types its fields may come from */
    JsonNames with(Class<?>... more) {
        sources.addAll(Arrays.asList(more));
        return this;
    }

    /** @return the shape of an object whose fields come from these types */
    static JsonNames of(Class<?>... sources) {
        return new JsonNames(sources);
    }

    /** Fields that are the tool's own: a count or grouping no API accessor gives. */
    JsonNames tool(String... names) {
        toolFields.addAll(Arrays.asList(names));
        return this;
    }

    /**
     * Components of a record among the sources that the object leaves out, and why. Every other component of
     * every record source must be a field (a {@code Duration x} as {@code xSeconds}): a component a record gains
     * and the JSON lacks fails the check until it is written or listed here with its reason.
     */
    JsonNames omits(Class<?> record, String why, String... components) {
        if (!record.isRecord() || why.isBlank()) {
            throw new IllegalArgumentException(record + ": a record, and a reason");
        }
        sources.add(record);
        Map<String, String> m = carried.computeIfAbsent(record, k -> new LinkedHashMap<>());
        for (String c : components) {
            m.put(c, why);
        }
        return this;
    }

    /** A field whose object value is a map: its keys are data (GPU indices, controller names), not names. */
    JsonNames map(String name) {
        maps.add(name);
        return this;
    }

    /** A field whose value {@link Json#of} writes from a record (component names by construction). */
    JsonNames written(String name) {
        opaque.add(name);
        return this;
    }

    /** The shape of a nested object, or of each object in a nested array. */
    JsonNames field(String name, Supplier<JsonNames> shape) {
        nested.put(name, shape);
        return this;
    }

    JsonNames field(String name, JsonNames shape) {
        return field(name, () -> shape);
    }

    /**
     * @param where what is checked, for messages
     * @param node  an object, or an array of objects, of this shape
     * @return the mismatches, empty when every field name is an accessor's
     */
    List<String> check(String where, JsonNode node) {
        List<String> out = new ArrayList<>();
        check(where, node, out);
        return out;
    }

    /** @return how many objects were checked (a shape that matched nothing checks nothing) */
    private int check(String where, JsonNode node, List<String> out) {
        if (node.isArray()) {
            int n = 0;
            for (int i = 0; i < node.size(); i++) {
                n += check(where + "[" + i + "]", node.get(i), out);
            }
            return n;
        }
        if (!node.isObject()) {
            out.add(where + ": expected an object, found " + node.getNodeType());
            return 0;
        }
        // A record the object's fields come from is carried whole, unless the shape says what it omits and why.
        Map<Class<?>, Map<String, String>> records = new LinkedHashMap<>();
        for (Class<?> c : sources) {
            if (c.isRecord()) {
                records.put(c, carried.getOrDefault(c, Map.of()));
            }
        }
        for (Map.Entry<Class<?>, Map<String, String>> c : records.entrySet()) {
            for (java.lang.reflect.RecordComponent rc : c.getKey().getRecordComponents()) {
                String n = rc.getName();
                boolean duration = isDuration(rc.getAccessor());
                if (!c.getValue().containsKey(n) && !node.has(n) && !(duration && node.has(n + "Seconds"))) {
                    out.add(where + ": carries no " + c.getKey().getSimpleName() + "." + n + "(): write it, or say"
                            + " why not (omits)");
                }
            }
            for (String omitted : c.getValue().keySet()) {
                if (java.util.Arrays.stream(c.getKey().getRecordComponents()).noneMatch(rc -> rc.getName()
                        .equals(omitted))) {
                    out.add(where + ": " + c.getKey().getSimpleName() + " has no component " + omitted);
                }
            }
        }
        for (Map.Entry<String, JsonNode> e : node.properties()) {
            String name = e.getKey();
            JsonNode value = e.getValue();
            String at = where + "." + name;
            Optional<Method> accessor = accessor(name);
            if (accessor.isEmpty() && !toolFields.contains(name)) {
                out.add(at + ": no accessor named so in " + names(sources));
                continue;
            }
            if (accessor.isPresent() && !toolFields.contains(name)) {
                Class<?> en = enumOf(accessor.get());
                if (en != null && !value.isNull() && !constants(en).contains(value.asText())) {
                    out.add(at + ": " + value + " is not a constant of " + en.getSimpleName() + " " + constants(en));
                }
            }
            boolean structured = value.isObject() || (value.isArray() && value.size() > 0 && value.get(0).isObject());
            if (!structured || maps.contains(name) || opaque.contains(name)) {
                continue;
            }
            Supplier<JsonNames> shape = nested.get(name);
            if (shape == null) {
                out.add(at + ": an object with no shape given (name its types, or mark it a map)");
            } else {
                shape.get().check(at, value, out);
            }
        }
        return 1;
    }

    private Optional<Method> accessor(String name) {
        for (Class<?> c : sources) {
            for (Method m : c.getMethods()) {
                if (Modifier.isStatic(m.getModifiers()) || m.getDeclaringClass() == Object.class) {
                    continue;
                }
                String n = m.getName();
                boolean matches = n.equals(name)
                        || (n.equals("is" + capitalized(name)) && m.getReturnType() == boolean.class)
                        || (name.endsWith("Seconds") && n.equals(name.substring(0, name.length() - "Seconds".length()))
                        && isDuration(m))
                        || (name.equals("message") && n.equals("getMessage") && Throwable.class.isAssignableFrom(c));
                if (matches) {
                    return Optional.of(m);
                }
            }
        }
        return Optional.empty();
    }

    private static boolean isDuration(Method m) {
        if (m.getReturnType() == Duration.class) {
            return true;
        }
        return m.getReturnType() == Optional.class && m.getGenericReturnType() instanceof ParameterizedType p
                && p.getActualTypeArguments()[0] == Duration.class;
    }

    /** @return the enum an accessor returns (directly or in an {@code Optional}), else null */
    private static Class<?> enumOf(Method m) {
        if (m.getReturnType().isEnum()) {
            return m.getReturnType();
        }
        if (m.getReturnType() == Optional.class && m.getGenericReturnType() instanceof ParameterizedType p) {
            Type t = p.getActualTypeArguments()[0];
            if (t instanceof Class<?> c && c.isEnum()) {
                return c;
            }
        }
        return null;
    }

    private static List<String> constants(Class<?> en) {
        return Arrays.stream(en.getEnumConstants()).map(x -> ((Enum<?>) x).name()).toList();
    }

    private static String capitalized(String s) {
        return s.isEmpty() ? s : Character.toUpperCase(s.charAt(0)) + s.substring(1);
    }

    private static List<String> names(List<Class<?>> classes) {
        return classes.stream().map(Class::getSimpleName).toList();
    }
}
