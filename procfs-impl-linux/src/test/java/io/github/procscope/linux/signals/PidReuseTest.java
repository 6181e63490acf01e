package io.github.procscope.linux.signals;

import io.github.procscope.testing.Commands;
import io.github.procscope.testing.NativeHelpers;
import io.github.procscope.testing.Spawned;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Forced pid reuse: in a PID namespace of its own, a newcomer is put on the pid of a process that was just
 * killed and reaped ({@code ns_last_pid}), often within the same clock tick, so that (pid, start ticks) are
 * equal. The key taken of the first process must never reach the newcomer: 200 sends and 50 stops, none
 * delivered. The run happens in {@link PidReuseProbe}, PID 1 of the namespace, which sees its pids. A probe that ends
 * without its summary fails the test with its exit status and its stderr. One way it could: a thread of the probe's
 * own JVM takes the old process's pid within its clock tick, and a sender that took the thread's id for a process
 * sends TERM to the probe ({@link ThreadOnAKeysPidTest} holds that refused; the probe prints a line when its own
 * thread took the pid).
 */
class PidReuseTest {
    private final Spawned spawned = new Spawned();
    @TempDir
    Path tmp;

    @AfterEach
    void end() {
        spawned.close();
    }

    @Test
    void aKeyNeverReachesTheNewcomerOnItsPidOver200Sends() throws Exception {
        Result r = run(200, "send");
        assertEquals(0, r.delivered, "no send may be delivered to the newcomer: " + r);
        assertEquals(0, r.newcomerHit, r.toString());
        assertTrue(r.reused >= 180, "the pid was reused in most trials: " + r);
        assertTrue(r.sameTicks > 0, "some newcomers started within the same tick, as in the defect: " + r);
        assertTrue(r.exactKeys, "Linux 6.9+ gives keys with a pidfs inode: " + r);
        System.out.println("PidReuseTest send: " + r);
    }

    @Test
    void aStopNeverReachesTheNewcomerOnItsPid() throws Exception {
        Result r = run(50, "stop");
        assertEquals(0, r.delivered, r.toString());
        assertEquals(0, r.newcomerHit, r.toString());
        assertTrue(r.reused >= 45, r.toString());
        System.out.println("PidReuseTest stop: " + r);
    }

    @Test
    void withoutAPidfdAStartTimeCheckIsFooledByANewcomerOfTheSameTick() throws Exception {
        // The fallback of kernels without pidfds, shown for what it is: the reason the pidfd path exists.
        Result r = run(60, "ticks");
        assertTrue(r.sameTicks > 0, r.toString());
        assertTrue(r.delivered > 0 && r.delivered <= r.sameTicks + 2, "same-tick newcomers get the signal: " + r);
        assertEquals(r.delivered, r.newcomerHit, r.toString());
        System.out.println("PidReuseTest ticks: " + r);
    }

    private record Result(int trials, int reused, int sameTicks, int delivered, int newcomerHit, boolean exactKeys,
                          List<String> lines) {
        @Override
        public String toString() {
            return "trials " + trials + ", pid reused " + reused + ", same start tick " + sameTicks
                    + ", delivered " + delivered + ", newcomer hit " + newcomerHit + ", exact keys " + exactKeys
                    + (lines.size() > 1 ? ", " + lines : "");
        }
    }

    private Result run(int trials, String mode) throws Exception {
        assertTrue(Commands.available("unshare"), "unshare (util-linux) is needed");
        Path helper = NativeHelpers.executable("pid_reuse");
        List<String> cmd = new ArrayList<>(List.of("unshare", "--pid", "--fork", "--mount-proc", "--kill-child"));
        cmd.addAll(Spawned.javaCommand(List.of(), PidReuseProbe.class, helper.toString(), Integer.toString(trials),
                mode).command());
        Path stderr = Files.createTempFile(tmp, "probe-", ".err");
        Process p = spawned.start(new ProcessBuilder(cmd).redirectError(stderr.toFile()));
        List<String> lines = new ArrayList<>();
        Pattern summary = Pattern.compile("trials (\\d+) reused (\\d+) sameTicks (\\d+) delivered (\\d+) newcomerHit"
                + " (\\d+) exactKeys (\\w+)");
        while (true) {
            String line;
            try {
                line = Spawned.readLine(p, Duration.ofSeconds(180));
            } catch (AssertionError e) {
                throw new AssertionError(why(p, stderr, lines, e.getMessage()), e);
            }
            lines.add(line);
            Matcher m = summary.matcher(line);
            if (m.matches()) {
                assertTrue(p.waitFor(30, TimeUnit.SECONDS), () -> why(p, stderr, lines, "no end after the summary"));
                return new Result(Integer.parseInt(m.group(1)), Integer.parseInt(m.group(2)),
                        Integer.parseInt(m.group(3)), Integer.parseInt(m.group(4)), Integer.parseInt(m.group(5)),
                        Boolean.parseBoolean(m.group(6)), lines);
            }
        }
    }

    /**
     * @return why the probe gave no summary: how it ended (143: a TERM, such as a send that reached the probe's own
     *         JVM through a pid one of its threads took; 137: a KILL), what it wrote to stderr, and its lines so far
     */
    private static String why(Process p, Path stderr, List<String> lines, String what) {
        String status;
        try {
            status = p.waitFor(30, TimeUnit.SECONDS) ? "exit status " + p.exitValue()
                    + (p.exitValue() > 128 ? " (signal " + (p.exitValue() - 128) + ")" : "") : "still running";
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            status = "interrupted while waiting for it";
        }
        String err;
        try {
            err = Files.readString(stderr);
            err = err.length() > 8000 ? "..." + err.substring(err.length() - 8000) : err;
        } catch (IOException e) {
            err = "(unreadable: " + e + ")";
        }
        return "the probe gave no summary (" + what + "): " + status + "; its stderr: [" + err.strip()
                + "]; its lines: " + lines;
    }
}
