package io.github.procscope.cli;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

import java.time.Duration;
import java.time.Instant;
import java.util.Collection;
import java.util.Optional;
import java.util.OptionalDouble;
import java.util.OptionalInt;
import java.util.OptionalLong;

/**
 * The JSON conventions of every subcommand: bytes as integers in fields named {@code ...Bytes}, instants as
 * ISO-8601 strings, durations as seconds in fields named {@code ...Seconds}, and an absent fact as
 * {@code null}, never as 0, -1 or an empty string.
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

    /** @return a rate or percentage rounded to two decimals, as tools print them */
    static double round2(double v) {
        return Math.round(v * 100) / 100.0;
    }
}
