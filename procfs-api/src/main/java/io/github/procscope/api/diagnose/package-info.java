/**
 * Diagnosis: the usual causes of trouble on a training host, as findings a program can act on. A
 * {@link io.github.procscope.api.diagnose.Doctor} looks at a live machine (processes, memory, disks,
 * the kernel log, GPUs) and returns {@link io.github.procscope.api.diagnose.Finding}s, each with the
 * pids involved, the numbers read and advice. {@link io.github.procscope.api.diagnose.OomKill} is the
 * kernel's record of an out-of-memory kill, the usual cause of a training run that died with exit
 * status 137 and no traceback.
 */
package io.github.procscope.api.diagnose;
