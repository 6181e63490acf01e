package io.github.procscope.metrics;

import io.github.procscope.api.core.ProcessKey;
import io.github.procscope.api.diagnose.Doctor;
import io.github.procscope.api.files.OpenFiles;
import io.github.procscope.api.gpu.Gpus;
import io.github.procscope.api.kubernetes.KubernetesNames;
import io.github.procscope.api.memory.ProcessMemory;
import io.github.procscope.api.process.ProcessTable;

import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Supplier;

/**
 * The readers a {@link ProcscopeCollector} reads at each scrape. Only the process table is required; a source
 * left out means its metrics are left out.
 *
 * @param processes the process table (process groups, zombies, the join of GPU processes with processes)
 * @param openFiles the open-file reader, for deleted-but-open space per file system
 * @param gpus      opens the GPUs ({@code Procscope::openGpus}); called once, when the collector is
 *                  built; a {@link io.github.procscope.api.gpu.GpuUnavailableException} means no GPU metrics
 * @param doctor    the doctor, for findings by kind and severity and OOM kills per cgroup
 * @param memory    the memory reader, for the proportional memory types of the groups
 *                  ({@link ExporterOptions#gatherSmaps()})
 * @param kubernetes Kubernetes names ({@code Procscope::kubernetesNames}): the {@code pod}, {@code namespace} and
 *                  {@code container} labels of a GPU's series (the containers the kubelet allocated it to) and
 *                  GPU memory per pod, split per process through its container; the collector does not close it
 * @param jobs      the jobs whose trees get the {@code procscope_job_*} families: asked at each scrape, each job by
 *                  its id with the process it started ({@link io.github.procscope.api.job.Job#leader()}); a job whose process is gone has no
 *                  series
 */
public record MetricsSources(ProcessTable processes, Optional<OpenFiles> openFiles, Optional<Supplier<Gpus>> gpus,
                             Optional<Doctor> doctor, Optional<ProcessMemory> memory,
                             Optional<KubernetesNames> kubernetes,
                             Optional<Supplier<? extends Map<String, ProcessKey>>> jobs) {

    /** Checks that no component is null. */
    public MetricsSources {
        Objects.requireNonNull(processes, "processes");
        Objects.requireNonNull(openFiles, "openFiles");
        Objects.requireNonNull(gpus, "gpus");
        Objects.requireNonNull(doctor, "doctor");
        Objects.requireNonNull(memory, "memory");
        Objects.requireNonNull(kubernetes, "kubernetes");
        Objects.requireNonNull(jobs, "jobs");
    }

    /**
     * Sources without a memory reader.
     *
     * @param processes see the record's components
     * @param openFiles see the record's components
     * @param gpus      see the record's components
     * @param doctor    see the record's components
     */
    public MetricsSources(ProcessTable processes, Optional<OpenFiles> openFiles, Optional<Supplier<Gpus>> gpus,
                          Optional<Doctor> doctor) {
        this(processes, openFiles, gpus, doctor, Optional.empty(), Optional.empty(), Optional.empty());
    }

    /**
     * @param processes the process table
     * @return sources with the process table only
     */
    public static MetricsSources of(ProcessTable processes) {
        return new MetricsSources(processes, Optional.empty(), Optional.empty(), Optional.empty(), Optional.empty(),
                Optional.empty(), Optional.empty());
    }

    /**
     * @param files the open-file reader
     * @return these sources with it
     */
    public MetricsSources withOpenFiles(OpenFiles files) {
        return new MetricsSources(processes, Optional.of(files), gpus, doctor, memory, kubernetes, jobs);
    }

    /**
     * @param opener opens the GPUs
     * @return these sources with it
     */
    public MetricsSources withGpus(Supplier<Gpus> opener) {
        return new MetricsSources(processes, openFiles, Optional.of(opener), doctor, memory, kubernetes, jobs);
    }

    /**
     * @param d the doctor
     * @return these sources with it
     */
    public MetricsSources withDoctor(Doctor d) {
        return new MetricsSources(processes, openFiles, gpus, Optional.of(d), memory, kubernetes, jobs);
    }

    /**
     * {@return these sources with a memory reader}
     *
     * @param m the memory reader
     */
    public MetricsSources withMemory(ProcessMemory m) {
        return new MetricsSources(processes, openFiles, gpus, doctor, Optional.of(m), kubernetes, jobs);
    }

    /**
     * {@return these sources with Kubernetes names, asked at each scrape within their deadline}
     *
     * @param names Kubernetes names
     */
    public MetricsSources withKubernetes(KubernetesNames names) {
        return new MetricsSources(processes, openFiles, gpus, doctor, memory, Optional.of(names), jobs);
    }

    /**
     * {@return these sources with jobs, whose trees get the {@code procscope_job_*} families}
     *
     * @param jobs asked at each scrape: the jobs by id, each with the process it started
     */
    public MetricsSources withJobs(Supplier<? extends Map<String, ProcessKey>> jobs) {
        return new MetricsSources(processes, openFiles, gpus, doctor, memory, kubernetes, Optional.of(jobs));
    }
}
