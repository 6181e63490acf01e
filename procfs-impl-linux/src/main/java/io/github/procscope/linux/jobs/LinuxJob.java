package io.github.procscope.linux.jobs;

import io.github.procscope.api.core.ProcessKey;
import io.github.procscope.api.core.ProcscopeException;
import io.github.procscope.api.diagnose.KernelLog;
import io.github.procscope.api.diagnose.OomKill;
import io.github.procscope.api.gpu.GpuDevice;
import io.github.procscope.api.gpu.GpuProcess;
import io.github.procscope.api.gpu.Gpus;
import io.github.procscope.api.job.ForwardedSignal;
import io.github.procscope.api.job.GpuGhost;
import io.github.procscope.api.job.Job;
import io.github.procscope.api.job.JobEnding;
import io.github.procscope.api.job.JobEvent;
import io.github.procscope.api.job.JobReport;
import io.github.procscope.api.job.JobSpec;
import io.github.procscope.api.job.Straggler;
import io.github.procscope.api.memory.ProcessMemory;
import io.github.procscope.api.process.ProcessInfo;
import io.github.procscope.api.process.ProcessState;
import io.github.procscope.api.process.ProcessTable;
import io.github.procscope.api.signals.ExitStatus;
import io.github.procscope.api.signals.PreemptionGuard;
import io.github.procscope.api.signals.Signal;
import io.github.procscope.api.signals.SignalAction;
import io.github.procscope.api.signals.Signals;
import io.github.procscope.linux.sys.ProcessCalls;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * One supervised job. Its thread watches the first process ({@code waitid(WNOWAIT)} every
 * {@value #TICK_MS} ms), samples the job's processes every sample interval (reaping the members that were
 * adopted by this JVM and have ended), kills the job when a forwarded signal's grace period has passed,
 * then ends the stragglers and completes the report.
 *
 * <p><b>Identity.</b> A member is admitted through a pidfd: opened on the pid a sample listed, the process read again
 * and checked to be a member (a parent that is a member still running, or the job's session or group while no other
 * process can hold its id), then the pidfd seen not to have exited. The pidfd is held until the member is seen to
 * have ended, and every signal the job sends a member (forwarded, or ending a straggler) goes through it: a process
 * that took a member's pid, within the same clock tick or not, is never signalled, nor listed as a member. The
 * job's process group is signalled as a group only until the leader is reaped (until then no other group can have
 * its id).
 */
final class LinuxJob implements Job {
    private static final long TICK_MS = 20;
    private static final Duration KILL_WAIT = Duration.ofSeconds(5);
    /** How long the end of the job's output may take to reach its file once its processes have ended. */
    private static final Duration OUTPUT_WAIT = Duration.ofSeconds(5);

    private final JobSpec spec;
    private final ProcessKey leader;
    private final Instant started;
    private final ProcessCalls nat;
    private final ProcessTable table;
    private final Signals signals;
    private final KernelLog kernelLog;
    private final ProcessMemory memory;
    private final JobTreeSampler sampler;
    private final long selfPid;
    private final Optional<Gpus> gpus;
    private final Optional<JobCgroup> cgroup;
    /** The cgroup that holds the job for {@code cgroup.kill} (the memory cgroup itself, where that can). */
    private final Optional<JobCgroup> killGroup;
    private final Optional<JobSentinel> sentinel;
    private final Optional<OutputPump> pump;
    private final Forwarding forwarding;
    private final Map<Integer, Long> peakGpu = new java.util.TreeMap<>();
    private final CompletableFuture<JobReport> report = new CompletableFuture<>();

    /** Every member seen, with its last sample. Guarded by {@code this}. */
    private final Map<ProcessKey, ProcessInfo> seen = new LinkedHashMap<>();
    private final Map<ProcessKey, Duration> cpu = new HashMap<>();
    private final List<ForwardedSignal> forwarded = new ArrayList<>();
    private long peakRss;
    private long peakProcessRss;
    private long peakPss = -1;
    private int peakThreads;
    /**
     * The identity of every member admitted, by the (pid, start tick) that listings name it with: a pidfd opened on
     * its pid before its {@code /proc} entry was read again and checked, held until it is seen to have ended, so
     * every signal the job sends a member goes through that pidfd and reaches that process or none. Guarded by
     * {@code this}.
     */
    private final Map<ProcessKey, Held> held = new HashMap<>();
    /** The member admitted last with each pid. Guarded by {@code this}. */
    private final Map<Long, Held> heldByPid = new HashMap<>();
    /** Whether the leader has been reaped: its pid, and the group and session ids it made, may then be reused. */
    private boolean leaderReaped;
    /** Members alive (not zombies) at the last sample. Guarded by {@code this}. */
    private Set<ProcessKey> aliveBefore = Set.of();
    private final List<JobEvent> events = new ArrayList<>();
    private long eventsOmitted;
    private long graceDeadlineNanos = Long.MAX_VALUE;
    private boolean killedAfterGrace;
    private volatile boolean ended;

    LinuxJob(JobSpec spec, ProcessKey leader, Instant started, ProcessCalls nat, ProcessTable table, Signals signals,
             KernelLog kernelLog, ProcessMemory memory, JobTreeSampler sampler, Optional<Gpus> gpus,
             Optional<JobCgroup> cgroup, Optional<JobCgroup> killGroup, Optional<JobSentinel> sentinel,
             Optional<OutputPump> pump, Forwarding forwarding) {
        this.forwarding = forwarding;
        this.killGroup = killGroup;
        this.sentinel = sentinel;
        this.pump = pump;
        this.memory = memory;
        this.gpus = gpus;
        this.cgroup = cgroup;
        this.spec = spec;
        this.leader = leader;
        this.started = started;
        this.nat = nat;
        this.table = table;
        this.signals = signals;
        this.kernelLog = kernelLog;
        this.sampler = sampler;
        this.selfPid = nat.selfPid();
    }

    /** Passes on the signals that the forwarding handlers take, and starts the supervising thread. */
    void begin() {
        synchronized (this) {
            // Our child, not yet reaped: its pid is its own until the supervising thread reaps it.
            int fd = nat.pidfdPossible() ? nat.pidfdOpen(leader.pid()) : -1;
            Held h = new Held(leader, Math.max(fd, -1));
            held.put(leader.withoutInode(), h);
            heldByPid.put(leader.pid(), h);
        }
        forwarding.attach(this);
        Thread t = new Thread(this::supervise, "procscope-job-" + leader.pid());
        t.setDaemon(true);
        t.start();
    }

    @Override
    public ProcessKey leader() {
        return leader;
    }

    @Override
    public JobSpec spec() {
        return spec;
    }

    @Override
    public List<PreemptionGuard.Refusal> notForwarded() {
        return forwarding.refused();
    }

    @Override
    public JobReport await() throws InterruptedException {
        try {
            return report.get();
        } catch (ExecutionException e) {
            throw rethrow(e);
        }
    }

    @Override
    public Optional<JobReport> await(Duration timeout) throws InterruptedException {
        Objects.requireNonNull(timeout, "timeout");
        try {
            return Optional.of(report.get(Math.max(0, timeout.toNanos()), TimeUnit.NANOSECONDS));
        } catch (TimeoutException e) {
            return Optional.empty();
        } catch (ExecutionException e) {
            throw rethrow(e);
        }
    }

    private static RuntimeException rethrow(ExecutionException e) {
        Throwable c = e.getCause();
        if (c instanceof RuntimeException r) {
            return r;
        }
        if (c instanceof Error err) {
            throw err;
        }
        return new ProcscopeException("the job's supervisor failed: " + c, c);
    }

    @Override
    public void forward(Signal signal) {
        Objects.requireNonNull(signal, "signal");
        if (signal == Signal.KILL || signal == Signal.STOP) {
            throw new IllegalArgumentException(signal + " is not forwarded: the supervisor sends KILL itself"
                    + " after the grace period, and STOP would freeze the job");
        }
        synchronized (this) {
            if (ended) {
                return;
            }
            int delivered = sendToAll(signal);
            forwarded.add(new ForwardedSignal(signal, Instant.now(), delivered));
            if ((signal.defaultAction() == SignalAction.TERMINATE || signal.defaultAction() == SignalAction.CORE)
                    && graceDeadlineNanos == Long.MAX_VALUE) {
                graceDeadlineNanos = System.nanoTime() + spec.grace().toNanos();
            }
        }
    }

    /**
     * Sends to the job's process group while the leader is not reaped (no other group can have its id then), and to
     * each member outside it (every member once the leader is reaped), through the member's own pidfd.
     *
     * @return how many got it
     */
    private int sendToAll(Signal signal) {
        List<ProcessInfo> now = sample();
        int delivered = 0;
        boolean groupSent = !leaderReaped && signals.sendToGroup(leader.pid(), signal).delivered();
        for (ProcessInfo p : now) {
            if (p.state() == ProcessState.ZOMBIE) {
                continue;
            }
            if (groupSent && p.pgid() == leader.pid()) {
                delivered++;
            } else if (send(p, signal)) {
                delivered++;
            }
        }
        return delivered;
    }

    /**
     * Sends a signal to a member through the pidfd held since its admission (a process that took its pid is never
     * reached); where no pidfd could be had, through {@link Signals#send}, which checks the start time first.
     *
     * @return whether it was delivered
     */
    private synchronized boolean send(ProcessInfo member, Signal signal) {
        Held h = held.get(member.key());
        if (h == null || h.ended) {
            return false;
        }
        if (h.fd >= 0) {
            return nat.pidfdSendSignal(h.fd, signal) == 0;
        }
        return signals.send(h.key, signal).delivered();
    }

    private void supervise() {
        JobReport r = null;
        Throwable failure = null;
        try {
            r = superviseAndReport();
        } catch (Throwable t) {
            failure = t;
        }
        // Undone before the report is handed over: a caller that exits as soon as it has the report (the CLI's run)
        // would otherwise leave the cgroups behind, and the sentinel waiting.
        try {
            synchronized (this) {
                ended = true;
            }
            forwarding.close();
            releaseIdentities();
            sentinel.ifPresent(JobSentinel::done);
            cgroup.ifPresent(JobCgroup::remove);
            killGroup.filter(k -> cgroup.isEmpty() || k != cgroup.get()).ifPresent(JobCgroup::remove);
            LinuxJobSupervisor.jobEnded(nat);
        } catch (Throwable t) {
            if (failure == null) {
                failure = t;
            }
        }
        if (failure != null) {
            report.completeExceptionally(failure);
        } else {
            report.complete(r);
        }
    }

    private JobReport superviseAndReport() throws InterruptedException {
        long intervalNanos = spec.sampleInterval().toNanos();
        long nextSample = System.nanoTime();
        ExitStatus status;
        while (true) {
            if (nat.peekChildExit(leader.pid()).isPresent()) {
                sample(); // the zombie's stat holds its final CPU time, its children's included
                status = LinuxJobSupervisor.reapLeader(nat, leader.pid()).orElseThrow(() -> new IllegalStateException(
                        "the job's first process " + leader.pid() + " had ended but could not be reaped"));
                synchronized (this) {
                    leaderReaped = true;
                    Held h = heldByPid.get(leader.pid());
                    if (h != null && h.key.equals(leader)) {
                        h.end(nat);
                    }
                    ProcessInfo last = null;
                    for (ProcessInfo p : seen.values()) {
                        if (p.pid() == leader.pid()) {
                            last = p;
                        }
                    }
                    event(JobEvent.Kind.EXITED, last != null ? last.key() : leader, last, Instant.now(),
                            Optional.of(status));
                }
                break;
            }
            long now = System.nanoTime();
            if (now - nextSample >= 0) {
                sample();
                nextSample = now + intervalNanos;
            }
            synchronized (this) {
                if (now - graceDeadlineNanos >= 0) {
                    graceDeadlineNanos = Long.MAX_VALUE;
                    killedAfterGrace = true;
                    sendToAll(Signal.KILL);
                }
            }
            Thread.sleep(TICK_MS);
        }
        List<Straggler> stragglers = endStragglers();
        Instant end = Instant.now();
        // Every process of the job has ended: the pipe ends unless a process that left the job still holds it.
        Optional<io.github.procscope.api.job.LostOutput> lost = Optional.empty();
        if (pump.isPresent()) {
            lost = pump.get().finish(OUTPUT_WAIT);
        }
        List<GpuGhost> ghosts = gpus.map(this::ghosts).orElse(List.of());
        synchronized (this) {
            ended = true;
            Duration cpuTotal = cpu.values().stream().reduce(Duration.ZERO, Duration::plus);
            return new JobReport(spec.command(), leader.pid(), started, end, explain(status),
                    peakRss, peakProcessRss, peakGpu, cpuTotal, seen.size(), stragglers, forwarded,
                    peakPss < 0 ? java.util.OptionalLong.empty() : java.util.OptionalLong.of(peakPss), peakThreads,
                    events, eventsOmitted, ghosts, lost);
        }
    }

    /**
     * Samples the job's processes, keeps the peaks, reaps the adopted members that have ended.
     *
     * @return the members now (zombies included); empty if the process table could not be read
     */
    private synchronized List<ProcessInfo> sample() {
        List<ProcessInfo> members;
        try {
            members = admitted(sampler.members(leader.pid(), seen.keySet()));
        } catch (ProcscopeException e) {
            return List.of();
        }
        Instant takenAt = Instant.now();
        List<ProcessInfo> out = new ArrayList<>();
        Set<ProcessKey> aliveNow = new java.util.HashSet<>();
        long total = 0;
        long pss = 0;
        boolean anyPss = false;
        int threads = 0;
        for (ProcessInfo p : members) {
            out.add(p);
            if (seen.put(p.key(), p) == null) {
                event(JobEvent.Kind.STARTED, p.key(), p, takenAt, Optional.empty());
            }
            cpu.merge(p.key(), p.cpuTime(), (a, b) -> a.compareTo(b) >= 0 ? a : b);
            if (p.state() == ProcessState.ZOMBIE) {
                if (p.ppid() == selfPid && p.pid() != leader.pid()) {
                    // an adopted member: ours to reap, never a ProcessBuilder child
                    exited(p, takenAt, LinuxJobSupervisor.reapUnlessLeader(nat, p.pid()));
                } else if (p.pid() != leader.pid()) {
                    exited(p, takenAt, Optional.empty());
                }
                continue;
            }
            aliveNow.add(p.key());
            total += p.rssBytes();
            threads += p.threads();
            peakProcessRss = Math.max(peakProcessRss, p.rssBytes());
            if (spec.pss()) {
                try {
                    pss += memory.totals(p.pid()).pssBytes();
                    anyPss = true;
                } catch (ProcscopeException e) {
                    // ended, or not readable by this user: its PSS is not counted in this sample
                }
            }
        }
        for (ProcessKey k : aliveBefore) {
            if (!aliveNow.contains(k) && k.pid() != leader.pid()) {
                exited(seen.get(k), takenAt, Optional.empty());
            }
        }
        aliveBefore = aliveNow;
        peakRss = Math.max(peakRss, total);
        peakThreads = Math.max(peakThreads, threads);
        if (anyPss) {
            peakPss = Math.max(peakPss, pss);
        }
        gpus.ifPresent(g -> sampleGpus(g, out));
        return out;
    }

    /**
     * The members among a sampler's listing. A listing names a process by (pid, start tick) only, which a process
     * that took a member's pid within the same clock tick shares. So a process listed under a member's key is that
     * member only while the member's pidfd has not exited (or it is the member's zombie); a process listed for the
     * first time is admitted through a pidfd ({@link #admit}).
     */
    private List<ProcessInfo> admitted(List<ProcessInfo> listed) {
        List<ProcessInfo> out = new ArrayList<>();
        List<ProcessInfo> fresh = new ArrayList<>();
        for (ProcessInfo p : listed) {
            if (p.pid() == selfPid || p.startTimeTicks() < leader.startTimeTicks()) {
                continue; // the pid was reused by a process older than the job: not a member
            }
            Held h = held.get(p.key());
            if (h == null) {
                fresh.add(p);
            } else if (h.isStill(p, nat)) {
                out.add(p);
            }
        }
        if (!fresh.isEmpty()) {
            out.addAll(admit(fresh));
        }
        return out;
    }

    /**
     * Admits the processes listed for the first time that are members: for each, a pidfd is opened on its pid, its
     * {@code /proc} entry read again, what makes it a member checked on that reading (the leader before it is
     * reaped; a parent that is a member whose pidfd has not exited; or the job's session or group, while no other
     * process can hold its id), and last its pidfd seen not to have exited, so that the reading was the pidfd's
     * process's. Parents are admitted before their children, whatever the listing's order.
     *
     * @return the listings of those admitted
     */
    private List<ProcessInfo> admit(List<ProcessInfo> fresh) {
        List<ProcessInfo> listings = new ArrayList<>();
        List<ProcessInfo> readings = new ArrayList<>();
        List<Integer> fds = new ArrayList<>();
        boolean pidfds = nat.pidfdPossible();
        for (ProcessInfo p : fresh) {
            int fd = pidfds ? nat.pidfdOpen(p.pid()) : -1;
            if (fd == -ESRCH) {
                continue; // gone
            }
            ProcessInfo now;
            try {
                now = table.process(p.pid(), Set.of());
            } catch (ProcscopeException e) {
                closeIfOpen(fd);
                continue;
            }
            if (now.startTimeTicks() != p.startTimeTicks()) {
                closeIfOpen(fd);
                continue; // another process holds the pid now: the next sample sees it for what it is
            }
            listings.add(p);
            readings.add(now);
            fds.add(Math.max(fd, -1));
        }
        List<ProcessInfo> out = new ArrayList<>();
        boolean grew = true;
        while (grew) {
            grew = false;
            for (int i = 0; i < readings.size(); i++) {
                ProcessInfo now = readings.get(i);
                if (now == null || !belongs(now)) {
                    continue;
                }
                readings.set(i, null);
                int fd = fds.get(i);
                boolean ended = fd >= 0 && nat.pidfdExited(fd);
                if (ended && now.state() != ProcessState.ZOMBIE && now.state() != ProcessState.DEAD) {
                    nat.close(fd);
                    continue; // the reading was of a process that took the pid since the pidfd was opened
                }
                java.util.OptionalLong ino = fd >= 0 ? nat.pidfdInode(fd) : java.util.OptionalLong.empty();
                Held h = new Held(ino.isPresent() ? new ProcessKey(now.pid(), now.startTimeTicks(), ino) : now.key(),
                        fd);
                if (ended) {
                    h.end(nat);
                }
                held.put(now.key(), h);
                heldByPid.put(now.pid(), h);
                out.add(listings.get(i));
                grew = true;
            }
        }
        for (int i = 0; i < readings.size(); i++) {
            if (readings.get(i) != null) {
                closeIfOpen(fds.get(i));
            }
        }
        return out;
    }

    /** @return whether a process, as read after a pidfd was opened on it, is a member by the job's rule */
    private boolean belongs(ProcessInfo now) {
        if (now.pid() == leader.pid()) {
            return !leaderReaped && (leader.startTimeTicks() == 0 || now.startTimeTicks() == leader.startTimeTicks());
        }
        if (now.isKernelThread() || now.pid() == 1) {
            return false;
        }
        Held parent = heldByPid.get(now.ppid());
        if (parent != null && parent.running(nat)) {
            return true;
        }
        return (now.sid() == leader.pid() || now.pgid() == leader.pid()) && jobsIdsStillTheJobs();
    }

    /**
     * @return whether a session or group whose id is the leader's pid is the job's: before the leader is reaped no
     *         other process can make one; after, while no process holds that pid (the kernel gives the pid of a
     *         session or group that still has members to no new process)
     */
    private boolean jobsIdsStillTheJobs() {
        if (!leaderReaped) {
            return true;
        }
        if (nat.pidfdPossible()) {
            int fd = nat.pidfdOpen(leader.pid());
            if (fd == -ESRCH) {
                return true;
            }
            closeIfOpen(fd);
            return false;
        }
        try {
            table.process(leader.pid(), Set.of());
            return false;
        } catch (ProcscopeException e) {
            return true;
        }
    }

    private void closeIfOpen(int fd) {
        if (fd >= 0) {
            nat.close(fd);
        }
    }

    /** Closes the pidfds still held: called once the job has ended. */
    private synchronized void releaseIdentities() {
        for (Held h : held.values()) {
            h.end(nat);
        }
    }

    /** {@code ESRCH} of {@code errno.h}: no such process. */
    private static final int ESRCH = 3;

    /** One member's identity, from its admission on. */
    private static final class Held {
        /** Its key, with the pidfs inode of its pidfd where the kernel has one. */
        final ProcessKey key;
        /** Its pidfd, or -1 where none could be had (the start time is then all that tells it apart). */
        int fd;
        /** Whether it has been seen to have ended (its pidfd is then closed). */
        boolean ended;

        Held(ProcessKey key, int fd) {
            this.key = key;
            this.fd = fd;
        }

        /** @return whether it has not ended, as its pidfd tells (without one: as far as can be known, yes) */
        boolean running(ProcessCalls nat) {
            if (ended) {
                return false;
            }
            if (fd >= 0 && nat.pidfdExited(fd)) {
                end(nat);
                return false;
            }
            return true;
        }

        /**
         * @param listed a process listed under this member's (pid, start tick), read before this call
         * @return whether it is this member: it had not ended after the listing was read, or it is its zombie
         */
        boolean isStill(ProcessInfo listed, ProcessCalls nat) {
            return running(nat) || listed.state() == ProcessState.ZOMBIE || listed.state() == ProcessState.DEAD;
        }

        void end(ProcessCalls nat) {
            ended = true;
            if (fd >= 0) {
                nat.close(fd);
                fd = -1;
            }
        }
    }

    /** Exit events already recorded, so that a zombie seen in several samples is one event. */
    private final Set<ProcessKey> exitRecorded = new java.util.HashSet<>();

    private void exited(ProcessInfo p, Instant at, Optional<ExitStatus> status) {
        if (p != null && exitRecorded.add(p.key())) {
            event(JobEvent.Kind.EXITED, p.key(), p, at, status);
        }
    }

    private void event(JobEvent.Kind kind, ProcessKey key, ProcessInfo p, Instant at, Optional<ExitStatus> status) {
        if (events.size() >= JobReport.MAX_EVENTS) {
            eventsOmitted++;
            return;
        }
        events.add(new JobEvent(kind, key, p == null ? 0 : Math.max(0, p.ppid()), p == null ? "" : p.comm(), at,
                status));
    }

    /**
     * @return the GPU memory NVML lists now for processes that were members of the job (same pid; a pid now held
     *         by a process that started after the member is not the member)
     */
    private List<GpuGhost> ghosts(Gpus g) {
        Map<Long, ProcessInfo> former = new HashMap<>();
        synchronized (this) {
            seen.forEach((k, p) -> former.put(k.pid(), p));
        }
        List<GpuGhost> out = new ArrayList<>();
        List<GpuDevice> devices;
        try {
            devices = g.devices();
        } catch (RuntimeException e) {
            return out; // NVML failed: no evidence either way
        }
        for (GpuDevice d : devices) {
            List<GpuProcess> procs;
            try {
                procs = d.processes().processes();
            } catch (RuntimeException e) {
                continue;
            }
            for (GpuProcess gp : procs) {
                ProcessInfo p = former.get(gp.pid());
                if (p == null) {
                    continue;
                }
                boolean alive;
                try {
                    ProcessKey now = table.key(gp.pid());
                    if (now.startTimeTicks() != p.startTimeTicks()) {
                        continue; // the pid was reused by another process
                    }
                    alive = true;
                } catch (ProcscopeException e) {
                    alive = false;
                }
                out.add(new GpuGhost(gp.pid(), p.comm(), d.index(), gp.usedMemoryBytes(), alive));
            }
        }
        return out;
    }

    /** Adds up, per GPU, the memory NVML reports for the job's live processes, and keeps the peaks. */
    private void sampleGpus(Gpus g, List<ProcessInfo> members) {
        Set<Long> pids = new java.util.HashSet<>();
        for (ProcessInfo p : members) {
            if (p.state() != ProcessState.ZOMBIE) {
                pids.add(p.pid());
            }
        }
        List<GpuDevice> devices;
        try {
            devices = g.devices();
        } catch (RuntimeException e) {
            return; // NVML failed this time: no GPU sample
        }
        for (GpuDevice d : devices) {
            long used = 0;
            boolean seenOn = false;
            try {
                for (GpuProcess p : d.processes().processes()) {
                    if (pids.contains(p.pid()) && p.usedMemoryBytes().isPresent()) {
                        used += p.usedMemoryBytes().getAsLong();
                        seenOn = true;
                    }
                }
            } catch (RuntimeException e) {
                continue; // this GPU could not be read this time
            }
            if (seenOn) {
                peakGpu.merge(d.index(), used, Math::max);
            }
        }
    }

    /** TERM to every member left, KILL after the grace period, until none is left. */
    private List<Straggler> endStragglers() throws InterruptedException {
        Map<ProcessKey, Signal> endedBy = new LinkedHashMap<>();
        Map<ProcessKey, List<String>> cmdlines = new HashMap<>();
        Map<ProcessKey, String> comms = new HashMap<>();
        long deadline = System.nanoTime() + spec.grace().toNanos();
        long killDeadline = Long.MAX_VALUE;
        while (true) {
            List<ProcessInfo> alive = alive(sample());
            if (alive.isEmpty()) {
                break;
            }
            long now = System.nanoTime();
            boolean kill = now - deadline >= 0;
            if (kill && killDeadline == Long.MAX_VALUE) {
                killDeadline = now + KILL_WAIT.toNanos();
            }
            if (kill && now - killDeadline >= 0) {
                throw new ProcscopeException("processes of job " + leader.pid() + " are still alive "
                        + KILL_WAIT.toSeconds() + " s after SIGKILL (in uninterruptible sleep?): " + alive);
            }
            for (ProcessInfo p : alive) {
                ProcessKey k = p.key();
                Signal want = kill ? Signal.KILL : Signal.TERM;
                if (endedBy.get(k) == want) {
                    continue;
                }
                if (!endedBy.containsKey(k)) {
                    comms.put(k, p.comm());
                    cmdlines.put(k, readCmdline(p.pid()));
                }
                endedBy.put(k, want);
                send(p, want);
            }
            Thread.sleep(TICK_MS);
        }
        List<Straggler> out = new ArrayList<>();
        endedBy.forEach((k, s) -> out.add(new Straggler(k, comms.get(k), cmdlines.get(k), s)));
        return out;
    }

    private List<ProcessInfo> alive(List<ProcessInfo> members) {
        List<ProcessInfo> out = new ArrayList<>();
        for (ProcessInfo p : members) {
            if (p.state() != ProcessState.ZOMBIE && p.state() != ProcessState.DEAD) {
                out.add(p);
            }
        }
        return out;
    }

    private List<String> readCmdline(long pid) {
        try {
            return table.cmdline(pid);
        } catch (ProcscopeException e) {
            return List.of();
        }
    }

    private JobEnding explain(ExitStatus status) {
        List<ForwardedSignal> fwd;
        boolean afterGrace;
        Set<Long> pids = new java.util.HashSet<>();
        synchronized (this) {
            fwd = List.copyOf(forwarded);
            afterGrace = killedAfterGrace;
            seen.keySet().forEach(k -> pids.add(k.pid()));
        }
        if (!fwd.isEmpty()) {
            ForwardedSignal first = fwd.get(0);
            String how = afterGrace
                    ? "it did not end within the grace period of " + human(spec.grace())
                            + ", so procscope sent SIGKILL to every process of the job"
                    : "it ended within the grace period of " + human(spec.grace());
            String ending = afterGrace && status instanceof ExitStatus.Killed k && k.signal() == Signal.KILL
                    ? "Killed by SIGKILL (9), the one procscope sent: SIGKILL cannot be caught, so nothing of the job"
                            + " ran afterwards (no handler, no finally block, no shutdown hook)."
                    : status.explainInDetail();
            return new JobEnding(status, JobEnding.Cause.PREEMPTED, "preempted: " + first.signal().fullName()
                    + " was forwarded to " + first.processes() + " process(es) of the job; " + how + ". "
                    + ending, Optional.empty());
        }
        long counted = cgroup.map(c -> c.oomKills().orElse(0)).orElse(0L);
        if (status instanceof ExitStatus.Killed k && k.signal() == Signal.KILL || counted > 0) {
            Optional<OomKill> oom = findOomKill(pids);
            if (oom.isEmpty() && counted > 0) {
                return new JobEnding(status, JobEnding.Cause.OOM_KILLED, "OOM-killed: the job's memory cgroup "
                        + cgroup.get().path() + " counted " + counted + " OOM kill(s) at its limit of "
                        + spec.memoryLimitBytes().getAsLong() + " bytes (the kernel log did not name the victim). "
                        + status.explainInDetail(), Optional.empty());
            }
            if (oom.isPresent()) {
                OomKill k = oom.get();
                StringBuilder b = new StringBuilder("OOM-killed: the kernel's OOM killer ended pid ").append(k.pid())
                        .append(" (").append(k.comm()).append(")");
                k.anonRssBytes().ifPresent(v -> b.append(", anon-rss ").append(v / (1024 * 1024)).append(" MiB"));
                b.append(k.memoryCgroup() ? ", at its memory cgroup's limit" : ", the machine being out of memory");
                k.cgroup().ifPresent(c -> b.append(" (cgroup ").append(c).append(")"));
                b.append(". ").append(status.explainInDetail());
                return new JobEnding(status, JobEnding.Cause.OOM_KILLED, b.toString(), oom);
            }
        }
        return new JobEnding(status, status instanceof ExitStatus.Killed ? JobEnding.Cause.KILLED_BY_SIGNAL : JobEnding.Cause.EXITED,
                status.explainInDetail(), Optional.empty());
    }

    private Optional<OomKill> findOomKill(Set<Long> pids) {
        try {
            Instant since = started.minusSeconds(1);
            for (OomKill k : kernelLog.oomKills()) {
                if (pids.contains(k.pid()) && k.time().map(t -> !t.isBefore(since)).orElse(true)) {
                    return Optional.of(k);
                }
            }
        } catch (RuntimeException e) {
            // No kernel log here (no /dev/kmsg, no permission): no evidence either way.
        }
        return Optional.empty();
    }

    private static String human(Duration d) {
        return d.toMillis() % 1000 == 0 ? d.toSeconds() + " s" : d.toMillis() + " ms";
    }

    @Override
    public String toString() {
        return "Job[" + leader + " " + spec.command() + "]";
    }
}
