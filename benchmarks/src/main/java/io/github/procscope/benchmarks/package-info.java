/**
 * JMH benchmarks of procscope against what users would pick instead (OSHI, {@link java.lang.ProcessHandle},
 * {@code lsof}) and against C references that set the floor, and the report generator that turns one JMH
 * run into {@code BENCHMARKS.md}. Run them with {@code benchmarks/run.sh}; the build compiles them but
 * never runs them.
 */
package io.github.procscope.benchmarks;
