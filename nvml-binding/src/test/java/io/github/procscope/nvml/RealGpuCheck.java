package io.github.procscope.nvml;

import io.github.procscope.api.Procscope;
import io.github.procscope.api.gpu.GpmMetrics;
import io.github.procscope.api.gpu.GpuDevice;
import io.github.procscope.api.gpu.GpuModes;
import io.github.procscope.api.gpu.GpuProcess;
import io.github.procscope.api.gpu.GpuProcessUtilization;
import io.github.procscope.api.gpu.GpuProcesses;
import io.github.procscope.api.gpu.GpuSample;
import io.github.procscope.api.gpu.GpuUnavailableException;
import io.github.procscope.api.gpu.GpuUser;
import io.github.procscope.api.gpu.Gpus;
import io.github.procscope.api.process.ProcessTable;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.OptionalLong;

/**
 * The real-GPU check (run by {@code src/test/device/check-real-gpu.sh} on a machine with an NVIDIA driver,
 * not by the test suite): reads every device through the binding and compares it with what
 * {@code nvidia-smi} printed a moment before, and looks for a PyTorch process that allocated a known amount.
 *
 * <p>Arguments: {@code --smi FILE} (output of {@code nvidia-smi --query-gpu=<QUERY> --format=csv,noheader,nounits}
 * with the columns of {@link #QUERY}), {@code --apps FILE} ({@code --query-compute-apps=pid,used_memory,gpu_uuid}),
 * optionally {@code --torch-pid PID --torch-bytes N}. Prints a report; exits 0 when every check passed, 1 when
 * one failed, 2 when NVML is unavailable.
 */
public final class RealGpuCheck {
    /** The {@code nvidia-smi --query-gpu} fields the check compares, in order. */
    public static final String QUERY = "index,uuid,name,pci.bus_id,memory.total,memory.used,utilization.gpu,"
            + "temperature.gpu,power.draw,enforced.power.limit,clocks.sm,clocks.mem,pstate,driver_version,"
            + "temperature.memory,utilization.encoder,utilization.decoder";

    private final List<String> failures = new ArrayList<>();
    private final List<String> report = new ArrayList<>();

    private RealGpuCheck() {
    }

    public static void main(String[] args) throws Exception {
        Map<String, String> opts = new HashMap<>();
        for (int i = 0; i + 1 < args.length; i += 2) {
            opts.put(args[i], args[i + 1]);
        }
        RealGpuCheck check = new RealGpuCheck();
        int rc;
        try (Gpus gpus = Procscope.system().openGpus()) {
            check.run(gpus, opts);
            rc = check.failures.isEmpty() ? 0 : 1;
        } catch (GpuUnavailableException e) {
            check.report.add("UNAVAILABLE " + e.reason() + ": " + e.getMessage());
            rc = 2;
        }
        check.report.forEach(System.out::println);
        check.failures.forEach(f -> System.out.println("FAIL " + f));
        System.out.println(rc == 0 ? "RESULT PASS" : rc == 1 ? "RESULT FAIL (" + check.failures.size() + ")" : "RESULT UNAVAILABLE");
        System.exit(rc);
    }

    private void run(Gpus gpus, Map<String, String> opts) throws IOException, InterruptedException {
        report.add("driver " + gpus.driverVersion() + ", NVML " + gpus.nvmlVersion() + ", CUDA "
                + gpus.cudaDriverVersion().map(Object::toString).orElse("-") + ", library "
                + (gpus instanceof NvmlGpus n ? n.libraryName() : "?"));
        gpus.inaccessibleDevices().forEach(g -> report.add("inaccessible: " + g.message()));
        Map<String, String[]> smi = new HashMap<>();
        if (opts.containsKey("--smi")) {
            for (String line : Files.readAllLines(Path.of(opts.get("--smi")))) {
                if (!line.isBlank()) {
                    String[] f = line.split(",\\s*");
                    smi.put(f[1].strip(), f);
                }
            }
        }
        for (GpuDevice d : gpus.devices()) {
            GpuSample s = d.sample();
            GpuModes m = d.modes();
            report.add(String.format(Locale.ROOT, "GPU %d %s %s pci %s minor %s serial %s", d.index(), d.uuid(), d.name(),
                    d.pciBusId().orElse("-"), d.minorNumber(), d.serial().orElse("-")));
            report.add("  sample " + s);
            report.add("  modes " + m);
            String[] row = smi.get(d.uuid());
            if (row == null) {
                fail("GPU " + d.index() + " " + d.uuid() + " is not in nvidia-smi's output");
            } else {
                compare(d, s, row, gpus.driverVersion());
            }
            GpuProcesses p = d.processes();
            report.add("  processes " + p);
            report.add("  process utilization " + d.processUtilization(Instant.EPOCH).map(List::size).map(Object::toString).orElse("not supported"));
            if (d.gpmSupported()) {
                Optional<GpmMetrics> gpm = d.gpmMetrics(Duration.ofMillis(200));
                report.add("  GPM " + gpm);
                if (gpm.isEmpty() || gpm.get().smActivityPercent().isEmpty()) {
                    fail("GPU " + d.index() + " says GPM is supported but gave no SM activity");
                }
            } else {
                report.add("  GPM not supported");
            }
            for (GpuDevice mig : d.migDevices()) {
                report.add("  MIG " + mig.index() + " " + mig.uuid() + " " + mig.sample().memory() + " " + mig.processes());
            }
        }
        if (opts.containsKey("--apps")) {
            List<GpuProcess> all = new ArrayList<>();
            for (GpuDevice d : gpus.devices()) {
                all.addAll(d.processes().processes());
            }
            for (String line : Files.readAllLines(Path.of(opts.get("--apps")))) {
                if (line.isBlank() || line.contains("No running")) {
                    continue;
                }
                String[] f = line.split(",\\s*");
                long pid = Long.parseLong(f[0].strip());
                String uuid = f[2].strip();
                Optional<GpuProcess> ours = all.stream().filter(x -> x.pid() == pid && x.deviceUuid().equals(uuid)).findFirst();
                if (ours.isEmpty()) {
                    fail("nvidia-smi lists pid " + pid + " on " + uuid + "; the binding does not");
                } else if (!f[1].strip().equals("[N/A]")) {
                    long smiMib = Long.parseLong(f[1].strip());
                    OptionalLong bytes = ours.get().usedMemoryBytes();
                    if (bytes.isEmpty() || Math.abs((bytes.getAsLong() >> 20) - smiMib) > 2) {
                        fail("pid " + pid + ": nvidia-smi " + smiMib + " MiB, binding " + bytes);
                    }
                }
            }
        }
        if (opts.containsKey("--torch-pid")) {
            long pid = Long.parseLong(opts.get("--torch-pid"));
            long bytes = Long.parseLong(opts.get("--torch-bytes"));
            List<GpuUser> users = gpus.users(Procscope.system().processes());
            Optional<GpuUser> torch = users.stream().filter(u -> u.pid() == pid).findFirst();
            report.add("torch process " + torch);
            if (torch.isEmpty()) {
                fail("the PyTorch process " + pid + " is not among the GPU users");
            } else {
                GpuUser u = torch.get();
                long used = u.usedMemoryBytes().orElse(-1);
                if (used < bytes) {
                    fail("the PyTorch process " + pid + " allocated " + bytes + " bytes; NVML reports " + u.usedMemoryBytes());
                }
                if (!u.visibleHere() || u.ghost()) {
                    fail("the PyTorch process " + pid + " should be visible and not a ghost: " + u);
                }
                report.add(String.format(Locale.ROOT, "torch pid %d: allocated %d MiB, NVML reports %d MiB (context overhead %d MiB)",
                        pid, bytes >> 20, used >> 20, (used - bytes) >> 20));
            }
            for (GpuDevice d : gpus.devices()) {
                for (GpuProcessUtilization x : d.processUtilization(Instant.EPOCH).orElse(List.of())) {
                    report.add("  util " + x);
                }
            }
        }
    }

    private void compare(GpuDevice d, GpuSample s, String[] f, String driverVersion) {
        String g = "GPU " + d.index() + " ";
        expect(g + "index", Integer.parseInt(f[0].strip()) == d.index(), f[0] + " vs " + d.index());
        expect(g + "name", f[2].strip().equals(d.name()), f[2] + " vs " + d.name());
        expect(g + "pci bus id", f[3].strip().equalsIgnoreCase(d.pciBusId().orElse("")), f[3] + " vs " + d.pciBusId());
        long totalMib = s.memoryTotalBytes().orElse(-1) >> 20;
        long smiTotal = Long.parseLong(f[4].strip());
        long smiUsed = Long.parseLong(f[5].strip());
        long used = s.memoryUsedBytes().orElse(-1) >> 20;
        long reserved = s.memory().flatMap(x -> x.reservedBytes().isPresent() ? Optional.of(x.reservedBytes().getAsLong() >> 20)
                : Optional.empty()).orElse(0L);
        report.add(String.format(Locale.ROOT, "  compare memory.total smi %d MiB / ours %d MiB; memory.used smi %d MiB / ours %d MiB"
                + " (+%d MiB reserved)", smiTotal, totalMib, smiUsed, used, reserved));
        expect(g + "memory.total", Math.abs(smiTotal - totalMib) <= 1, smiTotal + " vs " + totalMib);
        expect(g + "memory.used", Math.abs(smiUsed - used) <= 64 || Math.abs(smiUsed - used - reserved) <= 64,
                smiUsed + " vs " + used + " (+" + reserved + " reserved)");
        if (!f[6].contains("N/A")) {
            int util = Integer.parseInt(f[6].strip());
            expect(g + "utilization.gpu", Math.abs(util - s.gpuUtilizationPercent().orElse(-100)) <= 30,
                    util + " vs " + s.gpuUtilizationPercent());
        }
        if (!f[7].contains("N/A")) {
            int t = Integer.parseInt(f[7].strip());
            expect(g + "temperature.gpu", Math.abs(t - s.temperatureCelsius().orElse(-100)) <= 3, t + " vs " + s.temperatureCelsius());
        }
        if (!f[8].contains("N/A")) {
            double w = Double.parseDouble(f[8].strip());
            double ours = s.powerDrawWatts().orElse(-1000);
            expect(g + "power.draw", Math.abs(w - ours) <= 15 + 0.2 * w, w + " vs " + ours);
        }
        if (!f[9].contains("N/A")) {
            double limit = Double.parseDouble(f[9].strip());
            expect(g + "enforced.power.limit", Math.abs(limit - s.enforcedPowerLimitWatts().orElse(-1000)) <= 1,
                    limit + " vs " + s.enforcedPowerLimitWatts());
        }
        if (!f[10].contains("N/A")) {
            int sm = Integer.parseInt(f[10].strip());
            expect(g + "clocks.sm", Math.abs(sm - s.smClockMhz().orElse(-10000)) <= Math.max(100, sm / 5), sm + " vs " + s.smClockMhz());
        }
        if (!f[11].contains("N/A")) {
            int mem = Integer.parseInt(f[11].strip());
            expect(g + "clocks.mem", Math.abs(mem - s.memoryClockMhz().orElse(-10000)) <= Math.max(50, mem / 10),
                    mem + " vs " + s.memoryClockMhz());
        }
        String pstate = f[12].strip();
        if (pstate.startsWith("P")) {
            expect(g + "pstate", ("P" + s.performanceState().orElse(-1)).equals(pstate), pstate + " vs " + s.performanceState());
        }
        expect(g + "driver_version", f[13].strip().equals(driverVersion), f[13] + " vs " + driverVersion);
        if (f.length > 16) {
            compareOptional(g + "temperature.memory", f[14], s.memoryTemperatureCelsius(), 3);
            compareOptional(g + "utilization.encoder", f[15], s.encoderUtilizationPercent(), 30);
            compareOptional(g + "utilization.decoder", f[16], s.decoderUtilizationPercent(), 30);
        }
    }

    /** nvidia-smi's N/A is an empty value here; a number is within {@code slack} of ours. */
    private void compareOptional(String what, String smi, OptionalInt ours, int slack) {
        if (smi.contains("N/A")) {
            expect(what, ours.isEmpty(), smi.strip() + " vs " + ours);
        } else {
            int v = Integer.parseInt(smi.strip());
            expect(what, ours.isPresent() && Math.abs(v - ours.getAsInt()) <= slack, v + " vs " + ours);
        }
    }

    private void expect(String what, boolean ok, String detail) {
        report.add("  " + (ok ? "ok   " : "DIFF ") + what + ": " + detail);
        if (!ok) {
            fail(what + ": " + detail);
        }
    }

    private void fail(String message) {
        failures.add(message);
    }
}
