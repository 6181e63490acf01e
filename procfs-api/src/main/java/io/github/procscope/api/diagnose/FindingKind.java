package io.github.procscope.api.diagnose;

/** What a finding is about: one kind of problem, with its symptom and its usual cause. */
public enum FindingKind {
    /** Zombies: exited children their parent does not reap; killing them does nothing. */
    ZOMBIE,
    /** Processes adopted by PID 1 or a subreaper after their parent ended: often leftovers of dead runs. */
    ORPHAN,
    /** PID 1 is not an init, so the zombies it adopts are never reaped (a container without tini). */
    PID1_NOT_INIT,
    /** Deleted files still held open: their space returns only when the last holder closes them. */
    DELETED_OPEN_FILE,
    /** A file system over its space threshold. */
    DISK_FULL,
    /** A file system over its inode threshold: "No space left on device" with space left. */
    INODES_EXHAUSTED,
    /** Little memory available, or a cgroup near its limit. */
    MEMORY_PRESSURE,
    /** The kernel's OOM killer ended a process (SIGKILL, exit status 137). */
    OOM_KILL,
    /** Processes of a terminal session that will die when the session hangs up. */
    HANGUP_VULNERABLE,
    /** A GPU that holds memory while its utilization stays near zero. */
    GPU_IDLE_HOLDING,
    /** A process holding GPU memory whose parent training process is gone. */
    GPU_GHOST,
    /** A disk with high utilization and long waits: storage is the bottleneck. */
    IO_BOTTLENECK
}
