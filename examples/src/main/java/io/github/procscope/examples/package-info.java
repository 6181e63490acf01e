/**
 * Small runnable examples of procscope. The command-line tool lives in
 * {@link io.github.procscope.examples.cli}, the lab in {@code io.github.procscope.examples.lab}.
 *
 * <p>{@link io.github.procscope.examples.TrainingLoopDemo}: a training loop that checkpoints when it is
 * preempted (TERM), exits with 143, and resumes from its checkpoint when started again.
 */
package io.github.procscope.examples;
