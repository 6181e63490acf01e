package io.github.procscope.api.process;

import java.util.Optional;

/**
 * A task's scheduling state: the letter in field 3 of {@code /proc/PID/stat} and on the
 * {@code State:} line of {@code /proc/PID/status} (the first letter of {@code ps}'s STAT column).
 *
 * <p>Current kernels use {@code R S D T t Z X I P}; {@code W}, {@code K} and {@code x} appear on older
 * ones and are kept so that those kernels parse.
 */
public enum ProcessState {
    /** {@code R}: running, or runnable on a run queue. */
    RUNNING('R', "running"),
    /** {@code S}: interruptible sleep, waiting for an event (most idle processes). */
    SLEEPING('S', "sleeping"),
    /** {@code D}: uninterruptible sleep, usually waiting for disk or network I/O; signals wait until it ends. */
    DISK_SLEEP('D', "disk sleep"),
    /** {@code T}: stopped by a job-control signal (SIGSTOP, SIGTSTP, Ctrl-Z). */
    STOPPED('T', "stopped"),
    /** {@code t}: stopped by a debugger during tracing. */
    TRACING_STOP('t', "tracing stop"),
    /** {@code Z}: zombie: exited, but its parent has not collected the exit status with {@code wait}. */
    ZOMBIE('Z', "zombie"),
    /** {@code X} (and {@code x} before 4.14): dead, being removed; rarely seen. */
    DEAD('X', "dead"),
    /** {@code I}: idle kernel thread (since Linux 4.14). */
    IDLE('I', "idle"),
    /** {@code P}: parked kernel thread (Linux 3.9 to 3.13, and again since 4.14). */
    PARKED('P', "parked"),
    /** {@code W}: waking (Linux 2.6.33 to 3.13), or paging before 2.6.0. */
    WAKING('W', "waking"),
    /** {@code K}: wakekill (Linux 2.6.33 to 3.13). */
    WAKEKILL('K', "wakekill");

    private final char letter;
    private final String description;

    ProcessState(char letter, String description) {
        this.letter = letter;
        this.description = description;
    }

    /** {@return the kernel's letter, as {@code ps} shows it} */
    public char letter() {
        return letter;
    }

    /** {@return the kernel's own words for the state, as in {@code /proc/PID/status} ({@code "disk sleep"})} */
    public String description() {
        return description;
    }

    /**
     * {@return the state, or empty if the letter is not a state letter of any kernel}
     *
     * @param letter a state letter as the kernel prints it
     */
    public static Optional<ProcessState> fromLetter(char letter) {
        return Optional.ofNullable(lookup(letter));
    }

    private static ProcessState lookup(char letter) {
        switch (letter) {
            case 'R': return RUNNING;
            case 'S': return SLEEPING;
            case 'D': return DISK_SLEEP;
            case 'T': return STOPPED;
            case 't': return TRACING_STOP;
            case 'Z': return ZOMBIE;
            case 'X':
            case 'x': return DEAD;
            case 'I': return IDLE;
            case 'P': return PARKED;
            case 'W': return WAKING;
            case 'K': return WAKEKILL;
            default: return null;
        }
    }
}
