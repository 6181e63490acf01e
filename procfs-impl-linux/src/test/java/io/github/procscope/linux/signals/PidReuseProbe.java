package io.github.procscope.linux.signals;

import io.github.procscope.api.core.ProcessKey;
import io.github.procscope.api.process.ProcessTable;
import io.github.procscope.api.signals.PreemptionGuard;
import io.github.procscope.api.signals.SendResult;
import io.github.procscope.api.signals.Signal;
import io.github.procscope.api.signals.StopOptions;
import io.github.procscope.api.signals.StopReport;
import io.github.procscope.linux.proc.LinuxProcfs;

import java.nio.file.Path;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.OutputStreamWriter;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;

/**
 * Runs as PID 1 of a PID namespace of its own ({@code unshare --pid --fork --mount-proc}), so that it sees
 * the namespace's pids in its {@code /proc}. It drives the {@code pid_reuse} helper: a process A is started,
 * its key taken ({@code Signals.key(pid)}), A is killed and reaped, and a newcomer B is forced onto A's pid
 * through {@code ns_last_pid}; then the key of A is used (send TERM, or stop) and the helper reports whether
 * B was hit. Arguments: the helper, the number of trials, {@code send}, {@code stop}, or {@code ticks} (send
 * with a (pid, start ticks) key through {@code kill(2)}, no pidfd: the check that cannot tell a newcomer of the
 * same tick apart, for comparison). Prints one line:
 * {@code trials N reused R sameTicks S delivered D newcomerHit H}, where S counts the trials in which B's
 * (pid, start ticks) equalled A's: a check by start time alone could not have told them apart.
 */
public final class PidReuseProbe {
    private PidReuseProbe() {
    }

    public static void main(String[] args) throws Exception {
        int trials = Integer.parseInt(args[1]);
        boolean stop = args[2].equals("stop");
        boolean ticksOnly = args[2].equals("ticks");
        LinuxSignals signals = ticksOnly ? LinuxSignals.using(LinuxProcfs.at(Path.of("/proc"))).withoutPidfd() : LinuxSignals.using(LinuxProcfs.at(Path.of("/proc")));
        ProcessTable table = LinuxProcfs.at(Path.of("/proc"));
        Process helper = new ProcessBuilder(args[0]).redirectError(ProcessBuilder.Redirect.INHERIT).start();
        BufferedReader in = new BufferedReader(new InputStreamReader(helper.getInputStream(), StandardCharsets.UTF_8));
        Writer out = new OutputStreamWriter(helper.getOutputStream(), StandardCharsets.UTF_8);
        int reused = 0;
        int sameTicks = 0;
        int delivered = 0;
        int hit = 0;
        boolean exact = true;
        for (int i = 0; i < trials; i++) {
            long a = pidOf(ask(out, in, "a"), "A");
            ProcessKey keyA = ticksOnly ? table.key(a) : signals.key(a);
            exact &= keyA.pidfsInode().isPresent() || ticksOnly;
            long b = pidOf(ask(out, in, "r"), "B");
            if (b == a) {
                reused++;
                if (table.key(b).startTimeTicks() == keyA.startTimeTicks()) {
                    sameTicks++;
                }
            }
            if (stop) {
                StopReport r = signals.stop(keyA, StopOptions.defaults().withGracePeriod(Duration.ZERO)
                        .withKillWait(Duration.ofMillis(200)));
                if (r.processes().stream().anyMatch(p -> p.ending() != StopReport.Ending.GONE)) {
                    delivered++;
                }
            } else {
                SendResult r = signals.send(keyA, Signal.TERM);
                if (r.delivered()) {
                    delivered++;
                }
            }
            String state = ask(out, in, "c");
            if (!state.equals("alive")) {
                hit++;
                System.out.println("newcomer " + b + " " + state);
            }
            String done = in.readLine();
            if (!"checked".equals(done)) {
                throw new IllegalStateException("helper said " + done);
            }
        }
        out.close();
        helper.waitFor();
        System.out.println("trials " + trials + " reused " + reused + " sameTicks " + sameTicks + " delivered "
                + delivered + " newcomerHit " + hit + " exactKeys " + exact);
        System.out.flush();
    }

    private static String ask(Writer out, BufferedReader in, String command) throws Exception {
        out.write(command + "\n");
        out.flush();
        String line = in.readLine();
        if (line == null || line.startsWith("error")) {
            throw new IllegalStateException("helper: " + line);
        }
        return line;
    }

    private static long pidOf(String line, String tag) {
        if (!line.startsWith(tag + " ")) {
            throw new IllegalStateException("expected " + tag + ", got " + line);
        }
        return Long.parseLong(line.substring(tag.length() + 1));
    }
}
