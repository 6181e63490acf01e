/**
 * Micrometer binders over procscope's readers, for use inside an application: the JVM's own job tree
 * ({@link io.github.procscope.metrics.micrometer.JobTreeMetrics}), GPUs
 * ({@link io.github.procscope.metrics.micrometer.GpuMetrics}) and the doctor's findings
 * ({@link io.github.procscope.metrics.micrometer.DoctorMetrics}). Each takes its source as a constructor
 * parameter. Micrometer is an optional dependency of this module: an application that uses these binders brings
 * {@code micrometer-core} itself.
 */
package io.github.procscope.metrics.micrometer;
