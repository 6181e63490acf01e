/**
 * Small runnable examples of procscope, and (later) its command-line tool.
 *
 * <p>{@link io.github.procscope.examples.TrainingLoopDemo}: a training loop that checkpoints when it is
 * preempted (TERM), exits with 143, and resumes from its checkpoint when started again.
 */
package io.github.procscope.examples;
