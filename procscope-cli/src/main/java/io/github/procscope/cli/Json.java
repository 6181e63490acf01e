package io.github.procscope.cli;

import com.fasterxml.jackson.annotation.JsonAutoDetect;
import com.fasterxml.jackson.annotation.JsonValue;
import com.fasterxml.jackson.annotation.PropertyAccessor;
import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.databind.BeanDescription;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.JsonSerializer;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.ObjectWriter;
import com.fasterxml.jackson.databind.SerializationConfig;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.SerializerProvider;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.databind.module.SimpleModule;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.databind.ser.BeanPropertyWriter;
import com.fasterxml.jackson.databind.ser.BeanSerializerModifier;
import com.fasterxml.jackson.databind.ser.std.StdSerializer;
import com.fasterxml.jackson.databind.ser.std.ToStringSerializer;
import com.fasterxml.jackson.databind.type.TypeFactory;
import com.fasterxml.jackson.databind.util.NameTransformer;

import io.github.procscope.api.process.ProcessSnapshot;
import io.github.procscope.api.process.UnreadableProcess;
import io.github.procscope.api.signals.SignalSet;

import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Optional;
import java.util.OptionalDouble;
import java.util.OptionalInt;
import java.util.OptionalLong;

/**
 * The JSON conventions of every subcommand: a field is named as the library's accessor for its fact (a
 * boolean {@code isX()} as {@code x}, as Jackson names it; an enum's value by its constant's name); bytes as
 * integers in fields named {@code ...Bytes}, instants as ISO-8601 strings, a {@code Duration} accessor
 * {@code x()} as seconds in a field named {@code xSeconds}, and an absent fact as
 * {@code null}, never as 0, -1 or an empty string. Every command's JSON is a record written by
 * {@link #of(Object)}: one field per component, named as its accessor; an API record where the JSON is the
 * record's, else a small view record in the command where it adds a derived field (a percentage rounded as the
 * tool prints it, a process by its pid, a signal by its full name), its components named as the accessors the
 * values come from.
 */
final class Json {
    private Json() {
    }

    /**
     * @return an empty tree for a job's record file, the one JSON kept as a tree (see {@link Detacher}); what a
     *         command prints is a record, written by {@link #of(Object)}
     */
    static ObjectNode object() {
        return Context.mapper().createObjectNode();
    }

    /**
     * How many processes a view left out because their kernel files are malformed ({@code leftOut}) and which
     * ({@code unreadable}, each {@code {"pid", "file", "reason"}}), so that a script sees them without reading
     * stderr; written flat in a view's document.
     *
     * @param leftOut    how many
     * @param unreadable which, and why
     */
    record LeftOut(int leftOut, List<UnreadableProcess> unreadable) {
        /** @return what the snapshot a view was made of left out */
        static LeftOut of(ProcessSnapshot snapshot) {
            return new LeftOut(snapshot.unreadable().size(), snapshot.unreadable());
        }
    }

    /** Puts a list of strings in a job's record. */
    static void putStrings(ObjectNode o, String name, Collection<String> values) {
        ArrayNode a = o.putArray(name);
        values.forEach(a::add);
    }

    /** Puts an instant in a job's record, in ISO-8601. */
    static void put(ObjectNode o, String name, Instant v) {
        o.put(name, v.toString());
    }

    /** @return a rate or percentage rounded to two decimals, as tools print them */
    static double round2(double v) {
        return Math.round(v * 100) / 100.0;
    }

    /**
     * Writes an API value as JSON, with Jackson's record support: a record as an object with one field per
     * component, named as its accessor, in declaration order (and nothing else: a record's other methods, such
     * as a derived {@code isX()}, are not fields); an empty {@code Optional} as {@code null}; collections as
     * arrays; maps as objects keyed by their keys' text; enums by name; numbers, booleans and strings as
     * themselves; an {@code Instant} or a {@code Path} by its {@code toString()}; a {@code SignalSet} as the
     * names of its signals. A {@code Duration} component {@code x} is written as seconds (millisecond
     * precision) in a field named {@code xSeconds}; a {@code Duration} elsewhere (an element of a list) in
     * ISO-8601. A component marked {@code @JsonUnwrapped} (a command's view that adds a field to an API record, or
     * the owner fields every process row carries) has its own fields written flat in the object.
     *
     * @param value the value, not null
     * @return its JSON tree
     */
    static JsonNode of(Object value) {
        return Records.MAPPER.valueToTree(value);
    }

    /**
     * Writes an API value through a generator, as {@link #of(Object)} makes its tree, without flushing: a long
     * document is written part by part, none of it held.
     *
     * @param g     the generator
     * @param value the value
     * @throws IOException if the generator cannot write
     */
    static void write(JsonGenerator g, Object value) throws IOException {
        Records.WRITER.writeValue(g, value);
    }

    /** A {@code long} that holds an unsigned 64-bit number (an inode at or above 2^63) is written unsigned. */
    static final class Unsigned extends StdSerializer<Long> {
        Unsigned() {
            super(Long.class);
        }

        @Override
        public void serialize(Long v, JsonGenerator g, SerializerProvider p) throws IOException {
            if (v >= 0) {
                g.writeNumber(v);
            } else {
                g.writeNumber(new java.math.BigInteger(Long.toUnsignedString(v)));
            }
        }
    }

    /** A {@code SignalSet} is written as the names of its signals, as {@code kill -l} prints them. */
    private abstract static class SignalSetAsNames {
        @JsonValue
        abstract List<String> names();
    }

    /** A duration as seconds, millisecond precision. */
    private static final JsonSerializer<Object> SECONDS = new StdSerializer<>(Object.class) {
        @Override
        public void serialize(Object v, JsonGenerator g, SerializerProvider p) throws IOException {
            g.writeNumber(Units.seconds((Duration) v));
        }
    };

    /** The mapper of {@link #of}, made when first used: a table never loads Jackson's databind. */
    private static final class Records {
        static final ObjectMapper MAPPER = mapper();
        static final ObjectWriter WRITER = MAPPER.writer().without(SerializationFeature.FLUSH_AFTER_WRITE_VALUE);

        private static ObjectMapper mapper() {
            SimpleModule jdk = new SimpleModule("procscope-jdk-types");
            jdk.addSerializer(new StdSerializer<Optional<?>>(TypeFactory.defaultInstance().constructType(Optional.class)) {
                @Override
                public void serialize(Optional<?> v, JsonGenerator g, SerializerProvider p) throws IOException {
                    if (v.isPresent()) {
                        p.defaultSerializeValue(v.get(), g);
                    } else {
                        g.writeNull();
                    }
                }
            });
            jdk.addSerializer(OptionalLong.class, new StdSerializer<>(OptionalLong.class) {
                @Override
                public void serialize(OptionalLong v, JsonGenerator g, SerializerProvider p) throws IOException {
                    if (v.isPresent()) {
                        g.writeNumber(v.getAsLong());
                    } else {
                        g.writeNull();
                    }
                }
            });
            jdk.addSerializer(OptionalInt.class, new StdSerializer<>(OptionalInt.class) {
                @Override
                public void serialize(OptionalInt v, JsonGenerator g, SerializerProvider p) throws IOException {
                    if (v.isPresent()) {
                        g.writeNumber(v.getAsInt());
                    } else {
                        g.writeNull();
                    }
                }
            });
            jdk.addSerializer(OptionalDouble.class, new StdSerializer<>(OptionalDouble.class) {
                @Override
                public void serialize(OptionalDouble v, JsonGenerator g, SerializerProvider p) throws IOException {
                    if (v.isPresent()) {
                        g.writeNumber(v.getAsDouble());
                    } else {
                        g.writeNull();
                    }
                }
            });
            jdk.addSerializer(Instant.class, ToStringSerializer.instance);
            jdk.addSerializer(Duration.class, ToStringSerializer.instance);
            jdk.addSerializer(Path.class, ToStringSerializer.instance);
            // A record's fields are its components; no getter is a field (a record's isX() or getX() that is no
            // component is derived, not data). The fields are read, so no accessor may add to or rename them.
            // A Duration component x is the number of seconds in a field named xSeconds, as the tool writes it.
            jdk.setSerializerModifier(new BeanSerializerModifier() {
                @Override
                public List<BeanPropertyWriter> changeProperties(SerializationConfig config, BeanDescription bean,
                                                                 List<BeanPropertyWriter> properties) {
                    List<BeanPropertyWriter> out = new ArrayList<>();
                    for (BeanPropertyWriter w : properties) {
                        if (w.getType().hasRawClass(Duration.class)) {
                            BeanPropertyWriter seconds = w.rename(new NameTransformer() {
                                @Override
                                public String transform(String name) {
                                    return name + "Seconds";
                                }

                                @Override
                                public String reverse(String transformed) {
                                    return transformed.substring(0, transformed.length() - "Seconds".length());
                                }
                            });
                            seconds.assignSerializer(SECONDS);
                            out.add(seconds);
                        } else {
                            out.add(w);
                        }
                    }
                    return out;
                }
            });
            return JsonMapper.builder().addModule(jdk).addMixIn(SignalSet.class, SignalSetAsNames.class)
                    .visibility(PropertyAccessor.ALL, JsonAutoDetect.Visibility.NONE)
                    .visibility(PropertyAccessor.FIELD, JsonAutoDetect.Visibility.ANY)
                    .disable(SerializationFeature.FAIL_ON_EMPTY_BEANS)
                    .build();
        }
    }
}
