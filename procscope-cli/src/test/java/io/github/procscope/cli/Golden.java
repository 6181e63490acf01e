package io.github.procscope.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.databind.node.TextNode;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;

/**
 * Golden JSON files under {@code src/test/resources/golden}: the tool's output on the fixture machine, compared
 * field by field after the few values that truly vary by machine are replaced by placeholders: the fixture's
 * location ({@code <fixture>}), the owner of its files (uid and user, {@code <owner>}: the kernel's owner of
 * {@code /proc/PID} is what the tool reports, and a copied tree belongs to whoever runs the tests), and the
 * wall-clock time of a reading ({@code <now>}). Run with {@code -Dprocscope.golden.update=true} to rewrite them
 * after a deliberate change, then review the diff.
 */
final class Golden {
    private static final ObjectMapper MAPPER = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);
    /** Fields whose value is the time of reading. */
    private static final Set<String> NOW = Set.of("time", "takenAt");

    private final Map<String, String> replacements = new LinkedHashMap<>();
    private Long ownerUid;
    private String ownerName;

    /** Replaces every occurrence of a text (a path) inside string values. */
    Golden replacing(String text, String placeholder) {
        replacements.put(text, placeholder);
        return this;
    }

    /** Replaces uid and user fields that name the owner of the fixture's files. */
    Golden owner(Path file) {
        try {
            ownerUid = ((Number) Files.getAttribute(file, "unix:uid")).longValue();
            ownerName = Files.getOwner(file).getName();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return this;
    }

    /** @return the normalised document */
    JsonNode normalise(String json) {
        try {
            return normalise(null, MAPPER.readTree(json));
        } catch (IOException e) {
            throw new AssertionError("not JSON: " + json, e);
        }
    }

    private JsonNode normalise(String field, JsonNode n) {
        if (n.isObject()) {
            ObjectNode o = (ObjectNode) n;
            List<String> names = new ArrayList<>();
            o.fieldNames().forEachRemaining(names::add);
            for (String name : names) {
                o.set(name, normalise(name, o.get(name)));
            }
            return o;
        }
        if (n.isArray()) {
            ArrayNode a = (ArrayNode) n;
            for (int i = 0; i < a.size(); i++) {
                a.set(i, normalise(field, a.get(i)));
            }
            return a;
        }
        if (field != null && NOW.contains(field) && n.isTextual()) {
            return TextNode.valueOf("<now>");
        }
        if (ownerUid != null && "uid".equals(field) && n.isNumber() && n.asLong() == ownerUid) {
            return TextNode.valueOf("<owner>");
        }
        if (ownerName != null && "user".equals(field) && n.isTextual() && n.asText().equals(ownerName)) {
            return TextNode.valueOf("<owner>");
        }
        if (n.isTextual()) {
            String s = n.asText();
            for (Map.Entry<String, String> r : replacements.entrySet()) {
                s = s.replace(r.getKey(), r.getValue());
            }
            return TextNode.valueOf(s);
        }
        return n;
    }

    /** Asserts that a JSON document matches {@code golden/NAME.json}. */
    void assertMatches(String name, String json) {
        JsonNode actual = normalise(json);
        compare(name, actual);
    }

    /** Asserts that JSON Lines (one document per line) match {@code golden/NAME.json}, as an array. */
    void assertLinesMatch(String name, String jsonLines) {
        ArrayNode arr = MAPPER.createArrayNode();
        for (Iterator<String> it = jsonLines.lines().iterator(); it.hasNext(); ) {
            String line = it.next();
            if (!line.isBlank()) {
                arr.add(normalise(line));
            }
        }
        compare(name, arr);
    }

    private static void compare(String name, JsonNode actual) {
        String text;
        try {
            text = MAPPER.writeValueAsString(actual) + "\n";
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        if (Boolean.getBoolean("procscope.golden.update")) {
            try {
                Path file = Path.of("src/test/resources/golden", name + ".json");
                Files.createDirectories(file.getParent());
                Files.writeString(file, text, StandardCharsets.UTF_8);
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
            return;
        }
        try (InputStream in = Golden.class.getResourceAsStream("/golden/" + name + ".json")) {
            assertNotNull(in, "no golden file golden/" + name + ".json; write it with -Dprocscope.golden.update=true"
                    + " and review it");
            String expected = new String(in.readAllBytes(), StandardCharsets.UTF_8);
            JsonNode exp = MAPPER.readTree(expected);
            if (!exp.equals(actual)) {
                assertEquals(expected, text, "golden/" + name + ".json differs");
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
