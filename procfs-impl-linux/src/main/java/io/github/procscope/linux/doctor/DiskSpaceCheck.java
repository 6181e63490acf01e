package io.github.procscope.linux.doctor;

import io.github.procscope.api.diagnose.Evidence;
import io.github.procscope.api.diagnose.Finding;
import io.github.procscope.api.diagnose.Severity;
import io.github.procscope.api.disk.FileSystemUsage;
import io.github.procscope.api.system.SystemResources;

import java.util.ArrayList;
import java.util.List;

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
                Evidence ev = new Evidence.DiskFull(fs.mountPoint(), fs.mount().fsType(), fs.mount().source(),
                        fs.sizeBytes(), fs.usedBytes(), fs.availableBytes(), fs.usePercent(), fs.inodes(),
                        fs.inodesFree(), fs.inodeUsePercent());
                out.add(new Finding(use >= 98 || fs.availableBytes() == 0 ? Severity.CRITICAL
                        : Severity.WARNING, List.of(),
                        fs.mountPoint() + " is " + use + "% full (" + (fs.availableBytes() >> 20) + " MiB available)", ev,
                        "Find what filled it with procscope du " + fs.mountPoint() + " (or du -x). If df and du "
                        + "disagree, deleted files still held open take the difference: procscope deleted shows who "
                        + "holds them. Checkpoints and logs of old runs are the usual bulk."));
            }
            if (fs.inodes() > 0) {
                int iuse = fs.inodeUsePercent().orElse(0);
                if (iuse >= e.options().inodesUsedPercent()) {
                    Evidence ev = new Evidence.InodesExhausted(fs.mountPoint(), fs.mount().fsType(),
                            fs.mount().source(), fs.sizeBytes(), fs.usedBytes(), fs.availableBytes(), fs.usePercent(),
                            fs.inodes(), fs.inodesFree(), fs.inodeUsePercent());
                    out.add(new Finding(iuse >= 98 || fs.inodesFree() == 0
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
}
