package io.github.procscope.linux.doctor;

import io.github.procscope.api.diagnose.Evidence;
import io.github.procscope.api.diagnose.Finding;
import io.github.procscope.api.diagnose.Severity;
import io.github.procscope.api.disk.IoStat;

import java.util.ArrayList;
import java.util.List;

/**
 * Disks busy nearly all the window ({@code iostat -x}'s %util) with long waits (r_await, w_await): the
 * storage is the bottleneck. Judged over the sample window; with a zero window there is nothing to judge.
 */
final class IoBottleneckCheck implements DoctorCheck {
    @Override
    public String name() {
        return "disk i/o";
    }

    @Override
    public List<Finding> run(Examination e) {
        if (e.disksBefore().isEmpty() || e.disksAfter().isEmpty()) {
            return List.of();
        }
        if (e.options().sampleWindow().isZero()) {
            e.note(name() + ": a sample window of 0 measures no rates");
            return List.of();
        }
        List<Finding> out = new ArrayList<>();
        for (IoStat io : IoStat.between(e.disksBefore().get(), e.disksAfter().get())) {
            double await = Math.max(io.readAwaitMillis(), io.writeAwaitMillis());
            if (io.utilizationPercent() >= e.options().ioUtilPercent() && await >= e.options().ioAwaitMillis()) {
                Evidence ev = new Evidence.IoBottleneck(io.name(), io.interval().toMillis(),
                        round(io.utilizationPercent()), round(io.readAwaitMillis()), round(io.writeAwaitMillis()),
                        round(io.readsPerSecond()), round(io.writesPerSecond()), round(io.readKilobytesPerSecond()),
                        round(io.writeKilobytesPerSecond()), round(io.averageQueueSize()));
                out.add(new Finding(Severity.WARNING, List.of(),
                        String.format("%s was busy %.0f%% of the window with waits of %.0f ms", io.name(),
                                io.utilizationPercent(), await), ev,
                        "Training slows when it waits for storage: many small files read every epoch (pack them "
                        + "into shards), a dataset on network storage (copy it to local disk), or another job "
                        + "copying large files. Watch it with procscope iostat 1."));
            }
        }
        return out;
    }

    private static double round(double v) {
        return Math.round(v * 100) / 100.0;
    }
}
