package io.github.procscope.api.signals;

import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.Optional;

/**
 * A Linux signal: its number, its name and the kernel's default action. The numbers are those of
 * x86, ARM, RISC-V, PowerPC, s390 and the other architectures that use the generic numbering
 * ({@code asm-generic/signal.h}); Alpha, MIPS, PA-RISC and SPARC number some signals differently and
 * are not supported.
 *
 * <p>Signals 1 to 31 are the standard ones ({@link #HUP} ... {@link #SYS}). 32 to 64 are real-time
 * signals: the C library keeps 32 and 33 for itself, so they are named {@code RTMIN-2} and
 * {@code RTMIN-1}; 34 is {@code RTMIN}, 35 {@code RTMIN+1} ... 49 {@code RTMIN+15}, then 50 is
 * {@code RTMAX-14} ... 64 {@code RTMAX}, as {@code kill -l} prints them. A real-time signal's default
 * action is to terminate the process.
 *
 * <p>Each constant's javadoc gives its number, meaning and default action ({@link #defaultAction()},
 * from {@code signal(7)}): TERMINATE ends the process, CORE ends it with a core dump, IGNORE discards
 * the signal, STOP and CONTINUE stop and resume it.
 *
 * <p>Instances are canonical: {@code Signal.of(15) == Signal.TERM}.
 */
public final class Signal implements Comparable<Signal> {
    /** The highest signal number on Linux ({@code _NSIG - 1}). */
    public static final int MAX_NUMBER = 64;

    private static final Signal[] BY_NUMBER = new Signal[MAX_NUMBER + 1];

    /** 1, hang-up: the controlling terminal closed (an SSH session ended). Default: terminate. */
    public static final Signal HUP = define(1, "HUP", SignalAction.TERMINATE, "hangup");
    /** 2, interrupt from the keyboard (Ctrl-C). Default: terminate. */
    public static final Signal INT = define(2, "INT", SignalAction.TERMINATE, "interrupt");
    /** 3, quit from the keyboard (Ctrl-\); the JVM prints a thread dump. Default: core. */
    public static final Signal QUIT = define(3, "QUIT", SignalAction.CORE, "quit");
    /** 4, illegal instruction. Default: core. */
    public static final Signal ILL = define(4, "ILL", SignalAction.CORE, "illegal instruction");
    /** 5, trace or breakpoint trap. Default: core. */
    public static final Signal TRAP = define(5, "TRAP", SignalAction.CORE, "trace/breakpoint trap");
    /** 6, abort ({@code abort(3)}; also called IOT). Default: core. */
    public static final Signal ABRT = define(6, "ABRT", SignalAction.CORE, "aborted");
    /** 7, bus error (bad memory access). Default: core. */
    public static final Signal BUS = define(7, "BUS", SignalAction.CORE, "bus error");
    /** 8, floating-point (arithmetic) exception. Default: core. */
    public static final Signal FPE = define(8, "FPE", SignalAction.CORE, "floating point exception");
    /** 9, kill: cannot be caught, blocked or ignored; nothing runs afterwards. Default: terminate. */
    public static final Signal KILL = define(9, "KILL", SignalAction.TERMINATE, "killed");
    /** 10, user-defined signal 1 (SLURM's {@code --signal} default). Default: terminate. */
    public static final Signal USR1 = define(10, "USR1", SignalAction.TERMINATE, "user defined signal 1");
    /** 11, invalid memory reference. Default: core. */
    public static final Signal SEGV = define(11, "SEGV", SignalAction.CORE, "segmentation fault");
    /** 12, user-defined signal 2. Default: terminate. */
    public static final Signal USR2 = define(12, "USR2", SignalAction.TERMINATE, "user defined signal 2");
    /** 13, write to a pipe with no readers. Default: terminate. */
    public static final Signal PIPE = define(13, "PIPE", SignalAction.TERMINATE, "broken pipe");
    /** 14, timer from {@code alarm(2)}. Default: terminate. */
    public static final Signal ALRM = define(14, "ALRM", SignalAction.TERMINATE, "alarm clock");
    /** 15, termination request: the polite stop that a program may catch to clean up. Default: terminate. */
    public static final Signal TERM = define(15, "TERM", SignalAction.TERMINATE, "terminated");
    /** 16, stack fault on a coprocessor (unused). Default: terminate. */
    public static final Signal STKFLT = define(16, "STKFLT", SignalAction.TERMINATE, "stack fault");
    /** 17, a child stopped or exited (also called CLD). Default: ignore. */
    public static final Signal CHLD = define(17, "CHLD", SignalAction.IGNORE, "child exited");
    /** 18, continue if stopped. Default: continue. */
    public static final Signal CONT = define(18, "CONT", SignalAction.CONTINUE, "continued");
    /** 19, stop: cannot be caught, blocked or ignored. Default: stop. */
    public static final Signal STOP = define(19, "STOP", SignalAction.STOP, "stopped (signal)");
    /** 20, stop typed at the terminal (Ctrl-Z). Default: stop. */
    public static final Signal TSTP = define(20, "TSTP", SignalAction.STOP, "stopped");
    /** 21, terminal input for a background process. Default: stop. */
    public static final Signal TTIN = define(21, "TTIN", SignalAction.STOP, "stopped (tty input)");
    /** 22, terminal output for a background process. Default: stop. */
    public static final Signal TTOU = define(22, "TTOU", SignalAction.STOP, "stopped (tty output)");
    /** 23, urgent condition on a socket. Default: ignore. */
    public static final Signal URG = define(23, "URG", SignalAction.IGNORE, "urgent I/O condition");
    /** 24, CPU time limit exceeded ({@code setrlimit(2)}). Default: core. */
    public static final Signal XCPU = define(24, "XCPU", SignalAction.CORE, "CPU time limit exceeded");
    /** 25, file size limit exceeded. Default: core. */
    public static final Signal XFSZ = define(25, "XFSZ", SignalAction.CORE, "file size limit exceeded");
    /** 26, virtual alarm clock. Default: terminate. */
    public static final Signal VTALRM = define(26, "VTALRM", SignalAction.TERMINATE, "virtual timer expired");
    /** 27, profiling timer expired. Default: terminate. */
    public static final Signal PROF = define(27, "PROF", SignalAction.TERMINATE, "profiling timer expired");
    /** 28, window resize. Default: ignore. */
    public static final Signal WINCH = define(28, "WINCH", SignalAction.IGNORE, "window changed");
    /** 29, I/O now possible (also called POLL). Default: terminate. */
    public static final Signal IO = define(29, "IO", SignalAction.TERMINATE, "I/O possible");
    /** 30, power failure. Default: terminate. */
    public static final Signal PWR = define(30, "PWR", SignalAction.TERMINATE, "power failure");
    /** 31, bad system call (seccomp). Default: core. */
    public static final Signal SYS = define(31, "SYS", SignalAction.CORE, "bad system call");

    static {
        for (int n = 32; n <= MAX_NUMBER; n++) {
            define(n, realtimeName(n), SignalAction.TERMINATE, "real-time signal " + realtimeName(n));
        }
    }

    private static final List<Signal> ALL = List.of(java.util.Arrays.copyOfRange(BY_NUMBER, 1, MAX_NUMBER + 1));

    private final int number;
    private final String name;
    private final SignalAction defaultAction;
    private final String description;

    private Signal(int number, String name, SignalAction defaultAction, String description) {
        this.number = number;
        this.name = name;
        this.defaultAction = defaultAction;
        this.description = description;
    }

    private static Signal define(int number, String name, SignalAction action, String description) {
        Signal s = new Signal(number, name, action, description);
        BY_NUMBER[number] = s;
        return s;
    }

    private static String realtimeName(int n) {
        if (n < 34) {
            return "RTMIN-" + (34 - n);
        }
        if (n == 34) {
            return "RTMIN";
        }
        if (n <= 49) {
            return "RTMIN+" + (n - 34);
        }
        if (n == 64) {
            return "RTMAX";
        }
        return "RTMAX-" + (64 - n);
    }

    /** {@return the signal number, 1 to 64} */
    public int number() {
        return number;
    }

    /** {@return the name without the {@code SIG} prefix: {@code "TERM"}, {@code "RTMIN+3"}} */
    public String name() {
        return name;
    }

    /** {@return the name with the {@code SIG} prefix: {@code "SIGTERM"}} */
    public String fullName() {
        return "SIG" + name;
    }

    /** {@return what the kernel does when the signal is neither ignored nor caught} */
    public SignalAction defaultAction() {
        return defaultAction;
    }

    /** {@return a short description, as {@code strsignal(3)} gives it ({@code "terminated"})} */
    public String description() {
        return description;
    }

    /** {@return whether this is a real-time signal (32 to 64)} */
    public boolean isRealtime() {
        return number >= 32;
    }

    /** {@return whether the signal can be caught, blocked or ignored (all but KILL and STOP)} */
    public boolean isCatchable() {
        return number != 9 && number != 19;
    }

    /** {@return every signal, 1 to 64, in order} */
    public static List<Signal> all() {
        return ALL;
    }

    /**
     * {@return the signal}
     *
     * @param number a signal number
     * @throws IllegalArgumentException if the number is not between 1 and 64
     */
    public static Signal of(int number) {
        if (number < 1 || number > MAX_NUMBER) {
            throw new IllegalArgumentException("no such signal: " + number + " (Linux signals are 1 to "
                    + MAX_NUMBER + ")");
        }
        return BY_NUMBER[number];
    }

    /**
     * Parses a signal as a person writes it: {@code "TERM"}, {@code "SIGTERM"}, {@code "sigterm"},
     * {@code "15"}, the aliases {@code IOT}, {@code CLD}, {@code POLL}, and the real-time forms
     * {@code RTMIN}, {@code RTMIN+3}, {@code RTMAX-2} (with or without {@code SIG}). Surrounding
     * white space is ignored; anything else (other characters, a number outside 1 to 64) is refused.
     *
     * @param text the signal's name or number
     * @return the signal
     * @throws IllegalArgumentException naming the text if it is no signal
     */
    public static Signal parse(String text) {
        Objects.requireNonNull(text, "text");
        return tryParse(text).orElseThrow(() -> new IllegalArgumentException("unknown signal \"" + text
                + "\": give a name such as TERM, SIGTERM or KILL, or a number from 1 to " + MAX_NUMBER));
    }

    /**
     * {@return the signal, or empty when the text names none}
     *
     * @param text the signal's name or number
     * @see #parse(String)
     */
    public static Optional<Signal> tryParse(String text) {
        String t = Objects.requireNonNull(text, "text").strip();
        if (t.isEmpty() || t.length() > 16 || !ascii(t)) {
            return Optional.empty();
        }
        t = t.toUpperCase(Locale.ROOT);
        if (allDigits(t)) {
            if (t.length() > 2) {
                return Optional.empty();
            }
            int n = Integer.parseInt(t);
            return n >= 1 && n <= MAX_NUMBER ? Optional.of(BY_NUMBER[n]) : Optional.empty();
        }
        if (t.startsWith("SIG")) {
            t = t.substring(3);
        }
        switch (t) {
            case "IOT": return Optional.of(ABRT);
            case "CLD": return Optional.of(CHLD);
            case "POLL": return Optional.of(IO);
            default: break;
        }
        for (int n = 1; n <= MAX_NUMBER; n++) {
            if (BY_NUMBER[n].name.equals(t)) {
                return Optional.of(BY_NUMBER[n]);
            }
        }
        return realtime(t);
    }

    private static Optional<Signal> realtime(String t) {
        int base;
        String rest;
        if (t.startsWith("RTMIN")) {
            base = 34;
            rest = t.substring(5);
        } else if (t.startsWith("RTMAX")) {
            base = 64;
            rest = t.substring(5);
        } else {
            return Optional.empty();
        }
        if (rest.length() < 2 || (rest.charAt(0) != '+' && rest.charAt(0) != '-') || !allDigits(rest.substring(1))
                || rest.length() > 3) {
            return Optional.empty();
        }
        int offset = Integer.parseInt(rest.substring(1));
        int n = rest.charAt(0) == '+' ? base + offset : base - offset;
        return n >= 32 && n <= MAX_NUMBER ? Optional.of(BY_NUMBER[n]) : Optional.empty();
    }

    private static boolean ascii(String s) {
        for (int i = 0; i < s.length(); i++) {
            if (s.charAt(i) > 0x7e) {
                return false;
            }
        }
        return true;
    }

    private static boolean allDigits(String s) {
        if (s.isEmpty()) {
            return false;
        }
        for (int i = 0; i < s.length(); i++) {
            if (s.charAt(i) < '0' || s.charAt(i) > '9') {
                return false;
            }
        }
        return true;
    }

    @Override
    public int compareTo(Signal other) {
        return Integer.compare(number, other.number);
    }

    /** {@return the name with the {@code SIG} prefix, as {@code kill -l} prints it} */
    @Override
    public String toString() {
        return fullName();
    }
}
