package io.github.procscope.linux.doctor;

import io.github.procscope.api.diagnose.Evidence;
import io.github.procscope.api.diagnose.Finding;
import io.github.procscope.api.diagnose.Severity;
import io.github.procscope.api.files.DeletedFile;
import io.github.procscope.api.files.DeletedFilesScan;
import io.github.procscope.api.files.DeletedSpace;
import io.github.procscope.api.files.OpenFiles;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/**
 * Deleted files still held open ({@code lsof +L1}), per file system: their blocks return only when the
 * last holder closes them, which is the gap between {@code df} and {@code du}. Anonymous shared memory
 * ({@code memfd:}, System V {@code /SYSV...}) is deleted by design and not reported.
 */
final class DeletedFilesCheck implements DoctorCheck {
    private final OpenFiles files;

    DeletedFilesCheck(OpenFiles files) {
        this.files = files;
    }

    @Override
    public String name() {
        return "deleted files";
    }

    @Override
    public List<Finding> run(Examination e) {
        DeletedFilesScan scan = files.deletedFiles();
        Map<String, List<DeletedFile>> byDevice = new TreeMap<>();
        for (DeletedFile f : scan.files()) {
            if (f.path().startsWith("/memfd:") || f.path().startsWith("/SYSV") || f.path().startsWith("memfd:")) {
                continue;
            }
            byDevice.computeIfAbsent(f.device().toString(), k -> new ArrayList<>()).add(f);
        }
        List<Finding> out = new ArrayList<>();
        for (Map.Entry<String, List<DeletedFile>> group : byDevice.entrySet()) {
            List<DeletedFile> held = group.getValue();
            Map<String, Long> distinct = new LinkedHashMap<>();
            for (DeletedFile f : held) {
                distinct.putIfAbsent(f.device() + ":" + f.inode(), f.allocatedBytes());
            }
            long bytes = distinct.values().stream().mapToLong(Long::longValue).sum();
            if (bytes < e.options().deletedOpenMinBytes()) {
                continue;
            }
            DeletedSpace space = scan.fileSystems().stream().filter(s -> s.device().equals(held.get(0).device()))
                    .findFirst().orElse(null);
            String where = space != null && space.mountPoint().isPresent() ? space.mountPoint().get() : group.getKey();
            Evidence ev = new Evidence.DeletedOpenFiles(where, space == null ? Optional.empty() : space.fsType(),
                    distinct.size(), bytes, held);
            out.add(new Finding(bytes >= (1L << 30) ? Severity.WARNING : Severity.INFO,
                    held.stream().map(DeletedFile::pid).toList(),
                    (bytes >> 20) + " MiB on " + where + " belong to " + distinct.size() + " deleted file(s) still held open by "
                            + held.stream().map(DeletedFile::pid).distinct().count() + " process(es)",
                    ev, "The space returns when the holders close the files or end. Restart or signal the holder "
                    + "(many daemons reopen their logs on HUP); to free space at once, truncate through the "
                    + "descriptor: : > /proc/PID/fd/N."));
        }
        if (!scan.complete()) {
            e.note(name() + ": the descriptors of " + scan.unreadablePids().size() + " process(es) could not be read "
                    + "(pids " + scan.unreadablePids() + "); files they hold are not counted");
        }
        return out;
    }
}
