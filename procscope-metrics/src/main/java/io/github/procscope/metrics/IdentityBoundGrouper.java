package io.github.procscope.metrics;

/**
 * A grouper of this package whose answer depends only on what a process is (its command name and command line),
 * never on its tree, cgroup or counters: the collector decides a process's group once per identity
 * ({@link GroupAssignments}) and reads its command line only then.
 */
interface IdentityBoundGrouper extends TreeFreeGrouper {
}
