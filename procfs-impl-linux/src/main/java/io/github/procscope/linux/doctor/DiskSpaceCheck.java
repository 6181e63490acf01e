package io.github.procscope.linux.doctor;

import io.github.procscope.api.SystemResources;
import io.github.procscope.api.diagnose.Finding;
import io.github.procscope.api.diagnose.FindingKind;
import io.github.procscope.api.diagnose.Severity;
import io.github.procscope.api.disk.FileSystemUsage;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * File systems over the space or inode threshold ({@code df} and {@code df -i}). Pseudo and read-only
 * file systems are not judged. A full disk is critical: every run's next checkpoint will fail.
 */
final class DiskSpaceCheck implements DoctorCheck {
    private final SystemResources resources;

    DiskSpaceCheck(SystemResources resources) {
        this.resources = resources;
    }

    @Override
    public String name() {
        return "file systems";
    }

    @Override
    public List<Finding> run(Examination e) {
        List<Finding> out = new ArrayList<>();
        for (FileSystemUsage fs : resources.fileSystems()) {
            if (fs.isPseudo() || fs.readOnly() || fs.sizeBytes() == 0) {
                continue;
            }
            int use = fs.usePercent().orElse(0);
            if (use >= e.options().diskUsedPercent()) {
                Map<String, Object> ev = evidence(fs);
                out.add(new Finding(FindingKind.DISK_FULL, use >= 98 || fs.availableBytes() == 0 ? Severity.CRITICAL
                        : Severity.WARNING, List.of(),
                        fs.mountPoint() + " is " + use + "% full (" + (fs.availableBytes() >> 20) + " MiB available)", ev,
                        "Find what filled it with procscope du " + fs.mountPoint() + " (or du -x). If df and du "
                        + "disagree, deleted files still held open take the difference: procscope deleted shows who "
                        + "holds them. Checkpoints and logs of old runs are the usual bulk."));
            }
            if (fs.inodes() > 0) {
                int iuse = fs.inodeUsePercent().orElse(0);
                if (iuse >= e.options().inodesUsedPercent()) {
                    Map<String, Object> ev = evidence(fs);
                    out.add(new Finding(FindingKind.INODES_EXHAUSTED, iuse >= 98 || fs.inodesFree() == 0
                            ? Severity.CRITICAL : Severity.WARNING, List.of(),
                            fs.mountPoint() + " has used " + iuse + "% of its inodes (" + fs.inodesFree() + " left)", ev,
                            "Creating files fails with \"No space left on device\" although space is left. Millions "
                            + "of small files (an unpacked dataset, per-step logs) use them up: pack them (tar, "
                            + "webdataset shards) or delete them."));
                }
            }
        }
        return out;
    }

    private static Map<String, Object> evidence(FileSystemUsage fs) {
        Map<String, Object> ev = new LinkedHashMap<>();
        ev.put("mountPoint", fs.mountPoint());
        ev.put("fsType", fs.mount().fsType());
        ev.put("source", fs.mount().source());
        ev.put("sizeBytes", fs.sizeBytes());
        ev.put("usedBytes", fs.usedBytes());
        ev.put("availableBytes", fs.availableBytes());
        fs.usePercent().ifPresent(v -> ev.put("usePercent", v));
        ev.put("inodes", fs.inodes());
        ev.put("inodesFree", fs.inodesFree());
        fs.inodeUsePercent().ifPresent(v -> ev.put("inodesUsePercent", v));
        return ev;
    }
}
