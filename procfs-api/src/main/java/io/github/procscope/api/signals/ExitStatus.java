package io.github.procscope.api.signals;


import java.util.Locale;
import java.util.Objects;

/**
 * How a process ended: it {@linkplain Exited exited} with a status (0 to 255), or a signal
 * {@linkplain Killed killed} it (possibly dumping core). Immutable.
 *
 * <p>Two sources give different certainty:
 * <ul>
 *   <li>A raw wait status ({@code waitpid(2)}, {@code waitid(2)}) is exact:
 *       {@link #fromWaitStatus(int)}, {@link Source#WAIT_STATUS}.</li>
 *   <li>A single number 0 to 255, as a shell's {@code $?} and {@link Process#exitValue()} report it,
 *       folds a death by signal N into 128 + N: {@link #fromShellStatus(int)},
 *       {@link Source#SHELL_CONVENTION}. 137 is read as SIGKILL and 143 as SIGTERM, but a program may
 *       also exit with 137 or 143 itself. A JVM does exactly that: when it gets TERM (and has not been
 *       told otherwise with {@code -Xrs}) it runs its shutdown hooks and <em>exits</em> with 143; a
 *       training loop under a preemption guard checkpoints and then exits with 143 on purpose.</li>
 * </ul>
 *
 * <pre>{@code
 * Process p = new ProcessBuilder("python", "train.py").start();
 * ExitStatus s = ExitStatus.fromShellStatus(p.waitFor());
 * if (s instanceof ExitStatus.Killed k && k.signal() == Signal.KILL) {
 *     System.out.println(s.explain());   // "... if nobody sent it, suspect the OOM killer ..."
 * }
 * }</pre>
 */
public sealed interface ExitStatus permits ExitStatus.Exited, ExitStatus.Killed {

    /** Where a status came from, which says how certain its reading is. */
    enum Source {
        /** A raw wait status from {@code waitpid(2)} or {@code waitid(2)}: exact. */
        WAIT_STATUS,
        /**
         * A number 0 to 255 where 128 + N stands for "killed by signal N" (a shell's {@code $?},
         * {@link Process#exitValue()}): 129 to 192 are read as signals, although a program can also
         * exit with those values itself.
         */
        SHELL_CONVENTION
    }

    /**
     * The process called {@code exit(code)} (or returned {@code code} from {@code main}).
     *
     * @param code   the status passed to {@code exit}, 0 to 255
     * @param source where the status came from
     */
    record Exited(int code, Source source) implements ExitStatus {
        /**
         * Checks the components.
         *
         * @throws IllegalArgumentException if the code is outside 0 to 255
         */
        public Exited {
            if (code < 0 || code > 255) {
                throw new IllegalArgumentException("an exit status is 0 to 255 (the kernel keeps the low 8 bits"
                        + " of exit()'s argument), not " + code);
            }
            Objects.requireNonNull(source, "source");
        }

        @Override
        public int shellStatus() {
            return code;
        }

        @Override
        public String explain() {
            String prefix = source == Source.SHELL_CONVENTION ? "status " + code + ": " : "";
            if (code == 0) {
                return prefix + "exited normally with status 0 (success).";
            }
            if (code == 126) {
                return prefix + "exited with status 126: the command could not be executed.";
            }
            if (code == 127) {
                return prefix + "exited with status 127: the command was not found.";
            }
            if (code > 128 && code - 128 <= Signal.MAX_NUMBER) {
                return prefix + "exited with status " + code + " by itself (128 + " + (code - 128)
                        + " is the shell's code for " + Signal.of(code - 128).fullName() + ").";
            }
            return prefix + "exited with status " + code + ": the program reported failure.";
        }

        @Override
        public String explainInDetail() {
            String prefix = source == Source.SHELL_CONVENTION ? "status " + code + ": " : "";
            if (code == 0) {
                return prefix + "exited normally with status 0 (success).";
            }
            StringBuilder b = new StringBuilder(prefix).append("exited with status ").append(code);
            if (code == 126) {
                b.append(": by the shell convention, the command was found but could not be executed (no"
                        + " permission, or not an executable).");
            } else if (code == 127) {
                b.append(": by the shell convention, the command was not found (check PATH and the name).");
            } else if (code > 128 && code - 128 <= Signal.MAX_NUMBER) {
                Signal s = Signal.of(code - 128);
                b.append(" = 128 + ").append(s.number()).append(", the shell's code for \"killed by ")
                        .append(s.fullName()).append("\", but this process exited by itself.");
                if (s.number() == 15) {
                    b.append(" A JVM that gets SIGTERM runs its shutdown hooks and exits with 143 exactly so, and"
                            + " a training loop under a preemption guard exits with 143 on purpose once it has"
                            + " checkpointed: look for that checkpoint.");
                } else if (s.number() == 2 || s.number() == 1) {
                    b.append(" A JVM that gets ").append(s.fullName())
                            .append(" runs its shutdown hooks and exits with this status.");
                }
            } else {
                b.append(" (the program reported failure; its own output or log says why).");
            }
            if (b.charAt(b.length() - 1) != '.') {
                b.append('.');
            }
            return b.toString();
        }

        /** {@return {@code "exited 0"}, {@code "exited 143"}} */
        @Override
        public String toString() {
            return "exited " + code;
        }
    }

    /**
     * A signal's default action (terminate or core) ended the process.
     *
     * @param signal     the signal
     * @param coreDumped whether the kernel wrote a core dump; always false for a
     *                   {@link Source#SHELL_CONVENTION} reading, which does not carry that bit
     * @param source     where the status came from
     */
    record Killed(Signal signal, boolean coreDumped, Source source) implements ExitStatus {
        /**
         * Checks the components.
         *
         * @throws IllegalArgumentException if a shell-convention reading claims a core dump
         */
        public Killed {
            Objects.requireNonNull(signal, "signal");
            Objects.requireNonNull(source, "source");
            if (coreDumped && source == Source.SHELL_CONVENTION) {
                throw new IllegalArgumentException("a shell status (128 + N) does not say whether core was dumped");
            }
        }

        @Override
        public int shellStatus() {
            return 128 + signal.number();
        }

        @Override
        public String explain() {
            int n = signal.number();
            if (source == Source.SHELL_CONVENTION) {
                String hint = n == 15 ? ", as a JVM does after SIGTERM, and a training loop on purpose after its checkpoint"
                        : n == 9 ? "; if nobody sent SIGKILL, suspect the OOM killer" : "";
                return "status " + shellStatus() + ": killed by " + signal.fullName() + ", or the program exited with "
                        + shellStatus() + " itself" + hint + ".";
            }
            return "killed by " + signal.fullName() + " (" + n + ")" + (coreDumped ? ", core dumped" : "") + ": "
                    + shortMeaning(signal) + ".";
        }

        private static String shortMeaning(Signal s) {
            switch (s.number()) {
                case 9:
                    return "no handler could run; if nobody sent it, suspect the OOM killer";
                case 15:
                    return "a stop request the process did not handle";
                case 2:
                    return "the interrupt from the keyboard (Ctrl-C)";
                case 1:
                    return "its terminal went away (run long jobs under nohup, tmux or screen)";
                case 11:
                    return "an invalid memory access, a crash in native code";
                default:
                    return s.description();
            }
        }

        @Override
        public String explainInDetail() {
            StringBuilder b = new StringBuilder();
            int n = signal.number();
            if (source == Source.SHELL_CONVENTION) {
                b.append("status ").append(shellStatus()).append(" = 128 + ").append(n)
                        .append(": by the shell convention, killed by ").append(signal.fullName())
                        .append(" (unless the program itself exited with ").append(shellStatus()).append("). ");
                if (n == 15) {
                    return b.append("SIGTERM is a polite stop request (kill PID, docker stop, a Kubernetes or SLURM"
                            + " preemption). Either it ended the program unhandled, or the program handled it and"
                            + " exited with 143 itself: a JVM does so by default after its shutdown hooks, and a"
                            + " training loop under a preemption guard does so on purpose after checkpointing"
                            + " (look for that checkpoint).").toString();
                }
            } else {
                b.append("killed by ").append(signal.fullName()).append(" (").append(n).append(")")
                        .append(coreDumped ? ", core dumped" : "").append(". ");
                if (n == 15) {
                    return b.append("SIGTERM is a polite stop request (kill PID, docker stop, a Kubernetes or SLURM"
                            + " preemption), and the process did not handle it: its default action ended it."
                            + " A program that handles TERM can checkpoint and exit by itself, as a JVM under a"
                            + " preemption guard does (with status 143).").toString();
                }
            }
            return b.append(signalMeaning(signal)).toString();
        }

        /**
         * {@return {@code "killed by SIGKILL"}, {@code "killed by SIGSEGV (core dumped)"}, or for a
         * shell-convention reading {@code "143 (SIGTERM by the shell convention)"}}
         */
        @Override
        public String toString() {
            if (source == Source.SHELL_CONVENTION) {
                return shellStatus() + " (" + signal.fullName() + " by the shell convention)";
            }
            return "killed by " + signal.fullName() + (coreDumped ? " (core dumped)" : "");
        }

        private static String signalMeaning(Signal s) {
            switch (s.number()) {
                case 9:
                    return "SIGKILL cannot be caught: the kernel ended the process at once and nothing ran afterwards"
                            + " (no handler, no finally block, no shutdown hook). If nobody sent it, suspect the OOM"
                            + " killer: look for \"Out of memory: Killed process\" or \"oom-kill\" in the kernel log"
                            + " (dmesg, journalctl -k) and for oom_kill in the cgroup's memory.events.";
                case 2:
                    return "SIGINT is the interrupt from the keyboard (Ctrl-C).";
                case 1:
                    return "SIGHUP is sent when the controlling terminal goes away (an SSH session closed);"
                            + " run long jobs under nohup, tmux or screen to survive it.";
                case 11:
                    return "SIGSEGV is an invalid memory access: a crash in native code (a driver, a JNI library,"
                            + " a C extension).";
                case 7:
                    return "SIGBUS is a bad memory access, often a memory-mapped file that was truncated or a full"
                            + " /dev/shm.";
                case 6:
                    return "SIGABRT comes from abort(): a failed assertion or a fatal error detected by the"
                            + " program or its C library.";
                case 4:
                    return "SIGILL is an illegal instruction: code built for another CPU, or a corrupted binary.";
                case 8:
                    return "SIGFPE is an arithmetic fault, such as an integer division by zero.";
                case 13:
                    return "SIGPIPE means it wrote to a pipe or socket whose reader had gone away.";
                case 24:
                    return "SIGXCPU means it exceeded its CPU time limit (ulimit -t, a batch system's limit).";
                case 25:
                    return "SIGXFSZ means it exceeded its file size limit (ulimit -f).";
                default:
                    return s.fullName() + ": " + s.description() + " (default action "
                            + s.defaultAction().name().toLowerCase(Locale.ROOT) + ").";
            }
        }
    }

    /**
     * {@return an exact "exited with {@code status}"}
     *
     * @param status the status passed to {@code exit}, 0 to 255
     * @throws IllegalArgumentException if the status is outside 0 to 255
     */
    static ExitStatus exited(int status) {
        return new Exited(status, Source.WAIT_STATUS);
    }

    /**
     * {@return an exact "killed by {@code signal}"}
     *
     * @param signal     the signal that ended the process
     * @param coreDumped whether the kernel wrote a core dump
     */
    static ExitStatus killedBy(Signal signal, boolean coreDumped) {
        return new Killed(signal, coreDumped, Source.WAIT_STATUS);
    }

    /**
     * Decodes a raw wait status as {@code waitpid(2)} stores it: for an exit, the status in bits 8 to 15
     * and 0 in the low byte ({@code WIFEXITED}); for a death by signal, the signal in the low 7 bits and
     * the core-dump flag in bit 7 ({@code WIFSIGNALED}, {@code WCOREDUMP}).
     *
     * @param raw the status word
     * @return the exit status
     * @throws IllegalArgumentException if the word is not the status of an ended process: negative or
     *                                  above 16 bits, a stopped ({@code WIFSTOPPED}: low byte 0x7f) or
     *                                  continued ({@code WIFCONTINUED}: 0xffff) status, or a signal
     *                                  number above 64
     */
    static ExitStatus fromWaitStatus(int raw) {
        if (raw == 0xffff) {
            throw new IllegalArgumentException("wait status 0xffff means \"continued\" (WIFCONTINUED): the"
                    + " process has not ended");
        }
        if (raw < 0 || raw > 0xffff) {
            throw new IllegalArgumentException("not a wait status: 0x" + Integer.toHexString(raw)
                    + " (a wait status of an ended process fits in 16 bits)");
        }
        int low = raw & 0x7f;
        if (low == 0) {
            if ((raw & 0x80) != 0) {
                throw new IllegalArgumentException("not a wait status: 0x" + Integer.toHexString(raw)
                        + " (core-dump flag without a signal)");
            }
            return exited(raw >>> 8);
        }
        if (low == 0x7f) {
            throw new IllegalArgumentException("wait status 0x" + Integer.toHexString(raw) + " means \"stopped by"
                    + " signal " + (raw >>> 8) + "\" (WIFSTOPPED): the process has not ended");
        }
        if ((raw >>> 8) != 0) {
            throw new IllegalArgumentException("not a wait status: 0x" + Integer.toHexString(raw)
                    + " (a death by signal leaves bits 8 to 15 zero)");
        }
        if (low > Signal.MAX_NUMBER) {
            throw new IllegalArgumentException("not a wait status: 0x" + Integer.toHexString(raw)
                    + " names signal " + low + ", and Linux signals are 1 to " + Signal.MAX_NUMBER);
        }
        return killedBy(Signal.of(low), (raw & 0x80) != 0);
    }

    /**
     * Decodes a status as a shell's {@code $?} or {@link Process#exitValue()} gives it: 0 to 128 and 193
     * to 255 are exits; 128 + N for N from 1 to 64 is read as "killed by signal N" (137 = SIGKILL,
     * 143 = SIGTERM). Such a reading is not certain: see {@link Source#SHELL_CONVENTION}.
     *
     * @param status the status, 0 to 255
     * @return the exit status
     * @throws IllegalArgumentException if the status is outside 0 to 255
     */
    static ExitStatus fromShellStatus(int status) {
        if (status < 0 || status > 255) {
            throw new IllegalArgumentException("a shell exit status is 0 to 255, not " + status);
        }
        int n = status - 128;
        if (n >= 1 && n <= Signal.MAX_NUMBER) {
            return new Killed(Signal.of(n), false, Source.SHELL_CONVENTION);
        }
        return new Exited(status, Source.SHELL_CONVENTION);
    }

    /** {@return where this status came from, and so how certain its reading is} */
    Source source();

    /** {@return the status as a shell's {@code $?} shows it: the exit status, or 128 + the signal number} */
    int shellStatus();

    /**
     * Says in one sentence what ended the process, such as {@code "killed by SIGKILL (9): no handler could run;
     * if nobody sent it, suspect the OOM killer."}
     *
     * @return one sentence; {@link #explainInDetail()} has the reasons behind it
     */
    String explain();

    /**
     * Explains at length what ended the process and what to look at next: for SIGKILL, where the OOM killer
     * leaves its trace; for 143, that a JVM handling TERM, or a training loop checkpointing under a preemption
     * guard, exits with it on purpose.
     *
     * @return a few sentences
     */
    String explainInDetail();

    /** {@return whether the process exited with status 0} */
    default boolean isSuccess() {
        return this instanceof Exited e && e.code() == 0;
    }
}
