package io.github.procscope.metrics;

import io.github.procscope.api.process.ProcessTree;

import java.util.List;

/**
 * A grouper of this package that never reads the tree it is given (by command name, by rules, by cgroup owner):
 * the collector then builds no tree of the snapshot for it and passes {@link #NO_TREE}.
 */
interface TreeFreeGrouper extends ProcessGrouper {
    /** The tree a tree-free grouper is given: no process. */
    ProcessTree NO_TREE = ProcessTree.of(List.of());
}
