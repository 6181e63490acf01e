package io.github.procscope.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;

import io.github.procscope.api.signals.ExitStatus;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.RecordComponent;
import java.math.BigDecimal;
import java.math.BigInteger;

import java.time.Duration;
import java.time.Instant;
import java.util.Collection;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalDouble;
import java.util.OptionalInt;
import java.util.OptionalLong;

/**
 * The JSON conventions of every subcommand: a field is named as the library's accessor for its fact (a
 * boolean {@code isX()} as {@code x}, as Jackson names it; an enum's value by its constant's name); bytes as
 * integers in fields named {@code ...Bytes}, instants as ISO-8601 strings, a {@code Duration} accessor
 * {@code x()} as seconds in a field named {@code xSeconds}, and an absent fact as
 * {@code null}, never as 0, -1 or an empty string. A record of the API is written by {@link #of(Object)}:
 * one field per component, named as its accessor.
 */
final class Json {
    private Json() {
    }

    static ObjectNode object() {
        return Context.mapper().createObjectNode();
    }

    static ArrayNode array() {
        return Context.mapper().createArrayNode();
    }

    /**
     * @param leftOut processes a view left out because their kernel files are malformed
     * @return them as {@code [{"pid", "file", "reason"}]}, the form every view's {@code unreadable} takes
     */
    static ArrayNode unreadable(java.util.List<io.github.procscope.api.UnreadableProcess> leftOut) {
        ArrayNode a = array();
        leftOut.forEach(u -> a.addObject().put("pid", u.pid()).put("file", u.file().toString()).put("reason", u.reason()));
        return a;
    }

    /**
     * Adds to a view's document how many processes it left out because their kernel files are malformed
     * ({@code leftOut}) and which ({@code unreadable}), so that a script sees them without reading
     * stderr.
     *
     * @param o        the document
     * @param snapshot the snapshot the view was made of
     */
    static void putLeftOut(ObjectNode o, io.github.procscope.api.ProcessSnapshot snapshot) {
        o.put("leftOut", snapshot.unreadable().size());
        o.set("unreadable", unreadable(snapshot.unreadable()));
    }

    static void put(ObjectNode o, String name, OptionalLong v) {
        if (v.isPresent()) {
            o.put(name, v.getAsLong());
        } else {
            o.putNull(name);
        }
    }

    static void put(ObjectNode o, String name, OptionalInt v) {
        if (v.isPresent()) {
            o.put(name, v.getAsInt());
        } else {
            o.putNull(name);
        }
    }

    static void put(ObjectNode o, String name, OptionalDouble v) {
        if (v.isPresent()) {
            o.put(name, v.getAsDouble());
        } else {
            o.putNull(name);
        }
    }

    static void putText(ObjectNode o, String name, Optional<?> v) {
        if (v.isPresent()) {
            o.put(name, String.valueOf(v.get()));
        } else {
            o.putNull(name);
        }
    }

    static void put(ObjectNode o, String name, Instant v) {
        o.put(name, v.toString());
    }

    /** Puts a duration as seconds (millisecond precision); the name should end in {@code Seconds}. */
    static void put(ObjectNode o, String name, Duration v) {
        o.put(name, Units.seconds(v));
    }

    static void putStrings(ObjectNode o, String name, Collection<String> values) {
        ArrayNode a = o.putArray(name);
        values.forEach(a::add);
    }

    /**
     * Writes an exit status as the fields of its variant and of {@link ExitStatus}: {@code code} (an exit
     * code, null when killed), {@code signal} (the signal's name, null when it exited), {@code coreDumped},
     * {@code source} and {@code shellStatus}.
     */
    static void putExitStatus(ObjectNode o, ExitStatus s) {
        if (s instanceof ExitStatus.Exited e) {
            o.put("code", e.code());
            o.putNull("signal");
            o.put("coreDumped", false);
        } else if (s instanceof ExitStatus.Killed k) {
            o.putNull("code");
            o.put("signal", k.signal().name());
            o.put("coreDumped", k.coreDumped());
        }
        o.put("source", s.source().name());
        o.put("shellStatus", s.shellStatus());
    }

    /** @return a rate or percentage rounded to two decimals, as tools print them */
    static double round2(double v) {
        return Math.round(v * 100) / 100.0;
    }

    /**
     * Writes an API value as JSON: a record as an object with one field per component, named as the
     * accessor (in declaration order); an empty {@code Optional} as {@code null}; collections as arrays;
     * enums by name; numbers, booleans and strings as themselves; anything else (an {@code Instant}, a
     * {@code Path}, a {@code Duration} in ISO-8601) by its {@code toString()}.
     *
     * @param value the value, not null
     * @return its JSON tree
     */
    static JsonNode of(Object value) {
        JsonNodeFactory f = JsonNodeFactory.instance;
        if (value == null) {
            return f.nullNode();
        }
        if (value instanceof Record r) {
            ObjectNode o = f.objectNode();
            for (RecordComponent c : r.getClass().getRecordComponents()) {
                o.set(c.getName(), of(component(r, c)));
            }
            return o;
        }
        if (value instanceof Optional<?> v) {
            return v.isPresent() ? of(v.get()) : f.nullNode();
        }
        if (value instanceof OptionalLong v) {
            return v.isPresent() ? f.numberNode(v.getAsLong()) : f.nullNode();
        }
        if (value instanceof OptionalInt v) {
            return v.isPresent() ? f.numberNode(v.getAsInt()) : f.nullNode();
        }
        if (value instanceof OptionalDouble v) {
            return v.isPresent() ? f.numberNode(v.getAsDouble()) : f.nullNode();
        }
        if (value instanceof Collection<?> c) {
            ArrayNode a = f.arrayNode();
            c.forEach(e -> a.add(of(e)));
            return a;
        }
        if (value instanceof Map<?, ?> m) {
            ObjectNode o = f.objectNode();
            m.forEach((k, v) -> o.set(String.valueOf(k), of(v)));
            return o;
        }
        if (value instanceof Enum<?> e) {
            return f.textNode(e.name());
        }
        if (value instanceof Boolean b) {
            return f.booleanNode(b);
        }
        if (value instanceof Integer || value instanceof Long || value instanceof Short || value instanceof Byte) {
            return f.numberNode(((Number) value).longValue());
        }
        if (value instanceof Double || value instanceof Float) {
            return f.numberNode(((Number) value).doubleValue());
        }
        if (value instanceof BigInteger b) {
            return f.numberNode(b);
        }
        if (value instanceof BigDecimal b) {
            return f.numberNode(b);
        }
        return f.textNode(value.toString());
    }

    private static Object component(Record r, RecordComponent c) {
        try {
            return c.getAccessor().invoke(r);
        } catch (IllegalAccessException | InvocationTargetException e) {
            throw new IllegalStateException("cannot read " + r.getClass().getSimpleName() + "." + c.getName(), e);
        }
    }
}
