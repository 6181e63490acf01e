package io.github.procscope.linux.proc;

import java.nio.file.Path;
import java.util.function.Supplier;

/**
 * Run as {@code nobody} by {@link UnprivilegedAccessLiveIT}: reads a process's memory and descriptors and a
 * system-wide scan, and prints, one line per call, the simple name of what came back or was thrown.
 */
public final class UnprivilegedReader {
    private UnprivilegedReader() {
    }

    /**
     * @param args the pid to read
     */
    public static void main(String[] args) {
        long pid = Long.parseLong(args[0]);
        LinuxProcessMemory memory = LinuxProcessMemory.at(Path.of("/proc"), () -> LinuxProcfs.at(Path.of("/proc")));
        LinuxOpenFiles files = LinuxOpenFiles.at(Path.of("/proc"), () -> LinuxProcfs.at(Path.of("/proc")));
        print("maps", () -> memory.maps(pid));
        print("smaps", () -> memory.smaps(pid));
        print("totals", () -> memory.totals(pid));
        print("fds", () -> files.fds(pid));
        print("own-maps", () -> memory.maps(ProcessHandle.current().pid()).regions().isEmpty() ? "empty" : "regions");
        print("scan", () -> {
            var scan = files.deletedFiles();
            return "complete=" + scan.complete() + " unreadable=" + (scan.unreadablePids().contains(pid) ? "has-pid" : "no");
        });
        System.out.flush();
    }

    private static void print(String what, Supplier<Object> call) {
        String result;
        try {
            Object o = call.get();
            result = o instanceof String ? (String) o : "ok";
        } catch (RuntimeException e) {
            result = e.getClass().getSimpleName() + ": " + e.getMessage();
        }
        System.out.println(what + " " + result);
    }
}
