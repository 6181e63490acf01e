package io.github.procscope.linux.proc;

import io.github.procscope.testing.Commands;

/**
 * One row of {@code ps -o pid=,ppid=,stat=,nlwp=,rss=,vsz=,comm= -p PID}: the reference the live tests
 * compare with. comm is last so that spaces in it survive.
 */
record PsLine(long pid, long ppid, String stat, int nlwp, long rssKib, long vszKib, String comm) {

    static PsLine of(long pid) {
        String out = Commands.run("ps", "-o", "pid=,ppid=,stat=,nlwp=,rss=,vsz=,comm=", "-p", Long.toString(pid));
        String line = out.lines().findFirst().orElseThrow(() -> new AssertionError("ps shows no pid " + pid));
        String[] f = line.trim().split("\\s+", 7);
        return new PsLine(Long.parseLong(f[0]), Long.parseLong(f[1]), f[2], Integer.parseInt(f[3]),
                Long.parseLong(f[4]), Long.parseLong(f[5]), f.length > 6 ? f[6] : "");
    }
}
