package io.github.procscope.linux.jobs;

import java.io.File;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * A small shell process that outlives its supervisor to end the job when the supervisor dies without ending it
 * (SIGKILL, the OOM killer), so that nothing of a job runs on untracked.
 *
 * <p>It is started before the job, in a session of its own (so that a signal to the supervisor's process group or
 * terminal does not reach it; it also ignores the signals a terminal sends), with its standard input a pipe from
 * the supervisor. The supervisor writes {@code job PID} once the job runs, and {@code done} once the job has ended.
 * The end of the pipe without {@code done} means that the supervisor died: the kernel closed its end. Then, if
 * anything of the job is left, the sentinel says so on standard error (the supervisor's: its terminal or the job's
 * log) and ends the job as the supervisor would have: TERM to the job's process group, then, after the grace
 * period (or as soon as nothing is left), KILL through {@code cgroup.kill} of the job's cgroup, where the job has
 * one, and to the process group; then it removes the cgroup.
 *
 * <p>With a cgroup, every process of the job is ended, also one that left the job's session and process group
 * ({@code setsid}, a daemon's double fork). Without one (no cgroup v2 with {@code cgroup.kill}, or not permitted:
 * an unprivileged user), it is a best effort: the job's process group is ended, and a process that left it is not.
 * The group is named by its id, as a shell can only: {@code kill -0} first says whether any member is left, and a
 * group id is not handed out again while one is.
 */
final class JobSentinel {
    /** What the sentinel runs: {@code sh -c SCRIPT sh TICKS CGROUP SUPERVISOR}; ticks of 100 ms. */
    static final String SCRIPT = String.join("\n",
            "trap '' HUP INT TERM QUIT PIPE USR1 USR2 TSTP TTIN TTOU",
            "ticks=$1 cg=$2 sup=$3 pg=",
            "while IFS= read -r line; do",
            "  case $line in",
            "    done) exit 0 ;;",
            "    job\\ *) pg=${line#job } ;;",
            "  esac",
            "done",
            "left() {",
            "  if [ -n \"$cg\" ] && [ -r \"$cg/cgroup.procs\" ] && IFS= read -r p < \"$cg/cgroup.procs\"; then return 0; fi",
            "  [ -n \"$pg\" ] && kill -0 -$pg 2>/dev/null",
            "}",
            "left || { [ -z \"$cg\" ] || rmdir \"$cg\" 2>/dev/null; exit 0; }",
            "echo \"procscope: the supervisor (pid $sup) of job ${pg:-?} died; ending the job: TERM, then KILL after the"
                    + " grace period\" >&2",
            "[ -z \"$pg\" ] || kill -TERM -$pg 2>/dev/null",
            "i=0",
            "while [ \"$i\" -lt \"$ticks\" ] && left; do sleep 0.1; i=$((i + 1)); done",
            "if left; then",
            "  [ -z \"$cg\" ] || echo 1 > \"$cg/cgroup.kill\" 2>/dev/null",
            "  [ -z \"$pg\" ] || kill -KILL -$pg 2>/dev/null",
            "fi",
            "if [ -n \"$cg\" ]; then",
            "  i=0",
            "  while [ \"$i\" -lt 100 ] && ! rmdir \"$cg\" 2>/dev/null; do sleep 0.1; i=$((i + 1)); done",
            "fi",
            "exit 0");

    private final Process process;
    private final OutputStream pipe;

    private JobSentinel(Process process) {
        this.process = process;
        this.pipe = process.getOutputStream();
    }

    /**
     * Starts a sentinel for a job about to be spawned.
     *
     * @param grace      the job's grace period between TERM and KILL
     * @param killCgroup the job's cgroup (v2, with {@code cgroup.kill}), if it has one
     * @param supervisor this JVM's pid, for the message
     * @return the sentinel, or empty if no shell could be started (the job then relies on its parent-death signal)
     */
    static Optional<JobSentinel> start(Duration grace, Optional<Path> killCgroup, long supervisor) {
        long ticks = Math.max(0, Math.min(Integer.MAX_VALUE, (grace.toMillis() + 99) / 100));
        List<String> cmd = new ArrayList<>();
        LinuxJobSupervisor.onPath("setsid", System.getenv("PATH")).ifPresent(p -> cmd.add(p.toString()));
        cmd.addAll(List.of("sh", "-c", SCRIPT, "procscope-sentinel", Long.toString(ticks),
                killCgroup.map(Path::toString).orElse(""), Long.toString(supervisor)));
        try {
            Process p = new ProcessBuilder(cmd)
                    .redirectOutput(ProcessBuilder.Redirect.DISCARD)
                    .redirectError(ProcessBuilder.Redirect.INHERIT)
                    .directory(new File("/"))
                    .start();
            return Optional.of(new JobSentinel(p));
        } catch (IOException e) {
            return Optional.empty();
        }
    }

    /** Tells the sentinel which process group is the job's. */
    void started(long leader) {
        say("job " + leader + "\n");
    }

    /** Tells the sentinel that the job has ended: it exits without doing anything. */
    void done() {
        say("done\n");
        try {
            pipe.close();
        } catch (IOException e) {
            // it is gone already
        }
    }

    /** @return the sentinel's pid */
    long pid() {
        return process.pid();
    }

    private synchronized void say(String line) {
        try {
            pipe.write(line.getBytes(StandardCharsets.US_ASCII));
            pipe.flush();
        } catch (IOException e) {
            // The sentinel is gone (killed): the job still has its parent-death signal.
        }
    }

    /** @return whether a cgroup directory can end every process in it at once ({@code cgroup.kill}, Linux 5.14+) */
    static boolean canKill(Path cgroup) {
        return Files.isRegularFile(cgroup.resolve("cgroup.kill"));
    }
}
