/**
 * The doctor: {@link io.github.procscope.linux.doctor.LinuxDoctor} reads two samples through the readers
 * of the API (processes, system resources, open files, kernel log, GPUs) and runs one check per kind of
 * finding over them. Checks read no kernel file themselves; what they need comes from the readers.
 */
package io.github.procscope.linux.doctor;
