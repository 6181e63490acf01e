package io.github.procscope.benchmarks;

import java.lang.instrument.Instrumentation;

/**
 * A Java agent that only keeps the JVM's {@link Instrumentation}, for exact object sizes in
 * {@link RetainedSize}. {@code benchmarks/run.sh} starts the benchmark JVMs with
 * {@code -javaagent:benchmarks.jar}; it transforms no class.
 */
public final class SizeAgent {
    private static volatile Instrumentation instrumentation;

    private SizeAgent() {
    }

    /**
     * Called by the JVM before {@code main}.
     *
     * @param args ignored
     * @param inst the JVM's instrumentation
     */
    public static void premain(String args, Instrumentation inst) {
        instrumentation = inst;
    }

    /** @return the instrumentation, or null when the agent was not loaded */
    static Instrumentation instrumentation() {
        return instrumentation;
    }
}
