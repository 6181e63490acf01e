package io.github.procscope.api.job;

import io.github.procscope.api.core.ProcessKey;

import java.util.Optional;

/**
 * The process tree of one job (a training run: launcher, ranks, DataLoader workers), refreshed at the
 * caller's pace. Opened with {@link io.github.procscope.api.Procscope#jobTree}.
 *
 * <p><b>Cost.</b> With {@link Discovery#CHILDREN_FILES} a refresh reads the files of the tree's processes only
 * — {@code stat}, {@code statm}, the children lists of their threads, and what the {@link JobTreeOptions} ask
 * for — so it costs the same on a machine of 50 processes as on one of 5,000. Where the kernel lacks the
 * children files, every refresh takes a snapshot of the machine ({@link Discovery#FULL_SNAPSHOT}) and
 * {@link #fallbackReason()} says why.
 *
 * <p><b>Who is a member.</b> The root and its descendants; and, so that a worker that was double-forked (its
 * parent exited and it was re-parented to PID 1 or a subreaper) is not lost, every process that was a member
 * at an earlier refresh for as long as it lives (by {@link ProcessKey}, so a reused pid is not kept), with its
 * own descendants. A worker re-parented before the tree first saw it is found by a full scan: {@link #rescan()}
 * — also done when the tree is opened — adds every process, started after the root, in a process group or
 * session that a member leads (as {@code kill -- -PGID} would reach it), the same rule a tree stop follows.
 *
 * <p>Not thread-safe: one caller refreshes it.
 */
public interface JobTree {
    /** {@return the job's root} */
    ProcessKey root();

    /** {@return how refreshes find the members} */
    Discovery discovery();

    /** {@return why refreshes cannot use the children files; empty when they do} */
    Optional<String> fallbackReason();

    /**
     * Reads the tree now: the members, their facts, CPU since the previous refresh, who joined and left.
     *
     * @return the sample; once the root has exited, its surviving members (adopted) only, or none
     */
    JobSample refresh();

    /**
     * As {@link #refresh()}, after a scan of every process for members the children lists cannot reach
     * (re-parented before this tree saw them, in a group or session a member leads). Costs a full snapshot.
     *
     * @return the sample
     */
    JobSample rescan();
}
