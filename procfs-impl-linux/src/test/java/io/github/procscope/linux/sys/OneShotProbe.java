package io.github.procscope.linux.sys;

import io.github.procscope.api.Procscope;
import io.github.procscope.api.process.ProcessTable;

import java.nio.file.Path;

/**
 * Takes one snapshot and prints {@code one-snapshot-done}, then snapshots until the native reader is in use and
 * prints {@code native-after N} (N snapshots), or {@code native-never} after 20 s. Run with the class-load log
 * on standard output: what is logged before the first line is what one snapshot loaded.
 */
public final class OneShotProbe {
    private OneShotProbe() {
    }

    /** @param args unused */
    public static void main(String[] args) throws InterruptedException {
        ProcessTable table = Procscope.system().processes();
        table.snapshot();
        System.out.println("one-snapshot-done");
        long deadline = System.nanoTime() + 20_000_000_000L;
        int n = 1;
        while (System.nanoTime() < deadline) {
            table.snapshot();
            n++;
            try (ProcFiles f = ProcFiles.open(Path.of("/proc"), "/proc/", true, null)) {
                n++;
                if (f.isNative()) {
                    System.out.println("native-after " + n);
                    return;
                }
            }
            Thread.sleep(50);
        }
        System.out.println("native-never");
    }
}
