package io.github.procscope.examples.cli;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import io.github.procscope.linux.LinuxProcfs;

import java.io.PrintStream;
import java.nio.file.Path;

/** The global options of one invocation, resolved lazily into readers. */
final class Context {
    private static final ObjectMapper MAPPER = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);

    private final Path procfsRoot;
    private final Path sysfsRoot;
    private final boolean json;
    private final PrintStream out;
    private LinuxProcfs procfs;

    Context(Path procfsRoot, Path sysfsRoot, boolean json, PrintStream out) {
        this.procfsRoot = procfsRoot;
        this.sysfsRoot = sysfsRoot;
        this.json = json;
        this.out = out;
    }

    /** @return the process table under {@code --procfs-root}, or the live one */
    LinuxProcfs procfs() {
        if (procfs == null) {
            procfs = procfsRoot == null ? LinuxProcfs.system() : LinuxProcfs.at(procfsRoot);
        }
        return procfs;
    }

    /** @return the procfs root given, if any */
    Path procfsRoot() {
        return procfsRoot == null ? Path.of("/proc") : procfsRoot;
    }

    /** @return the sysfs root given, or {@code /sys} */
    Path sysfsRoot() {
        return sysfsRoot == null ? Path.of("/sys") : sysfsRoot;
    }

    boolean json() {
        return json;
    }

    PrintStream out() {
        return out;
    }

    static ObjectMapper mapper() {
        return MAPPER;
    }

    /** Prints a JSON document. */
    void printJson(JsonNode node) {
        try {
            out.println(MAPPER.writeValueAsString(node));
        } catch (JsonProcessingException e) {
            throw new IllegalStateException(e);
        }
    }
}
