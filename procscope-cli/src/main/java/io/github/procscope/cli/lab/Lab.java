package io.github.procscope.cli.lab;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import io.github.procscope.api.process.ProcessInfo;
import io.github.procscope.api.process.ProcessSnapshot;
import io.github.procscope.api.process.ProcessState;
import io.github.procscope.api.process.ProcessTable;
import io.github.procscope.api.process.ProcessTree;
import io.github.procscope.api.process.ThreadInfo;

import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.function.BooleanSupplier;

/**
 * The eight steps of the lab. Each step makes its phenomenon happen with a POSIX sh or JVM helper,
 * observes it through the library, writes its file, and records its numbers for {@code lab.json}.
 */
public final class Lab {
    private static final Duration WAIT = Duration.ofSeconds(30);

    private final Path out;
    private final Path scratch;
    private final ProcessTable table;
    private final Map<String, Object> facts = new LinkedHashMap<>();

    /**
     * @param out     where the eight files and lab.json go: a new or empty directory (the lab never overwrites)
     * @param scratch where step 6 writes its 64 MiB file (a file system whose free space the step watches)
     * @param table   the process table to observe with
     */
    public Lab(Path out, Path scratch, ProcessTable table) {
        this.out = Objects.requireNonNull(out, "out");
        this.scratch = Objects.requireNonNull(scratch, "scratch");
        this.table = Objects.requireNonNull(table, "table");
    }

    /**
     * Runs every step. Everything started is ended by pid, also when a step fails.
     *
     * @return the measured facts, as written to lab.json
     */
    public Map<String, Object> run() {
        requireNewOrEmpty(out);
        try {
            Files.createDirectories(out);
            Files.createDirectories(scratch);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot create " + out + " or " + scratch, e);
        }
        try (LabProcesses procs = new LabProcesses()) {
            step1Tree();
            step2Threads(procs);
            step3Zombie(procs);
            step4Orphan(procs);
            step5Memory(procs);
            LabSteps.step6Deleted(this, procs);
            LabSteps.step7Signal(this, procs);
        }
        step8Notes();
        write("lab.json", json(facts));
        return Map.copyOf(facts);
    }

    Path scratch() {
        return scratch;
    }

    ProcessTable table() {
        return table;
    }

    void fact(String name, Object value) {
        facts.put(name, value);
    }

    Object fact(String name) {
        return facts.get(name);
    }

    private void step1Tree() {
        ProcessSnapshot s = table.snapshot();
        long me = ProcessHandle.current().pid();
        ProcessInfo self = s.get(me);
        StringBuilder sb = new StringBuilder();
        sb.append("# 1. Who begat whom (ps -eo pid,ppid,stat,comm)\n\n");
        sb.append(String.format("this process: pid %d (%s), its parent: pid %d (%s)%n%n", me, self.comm(), self.ppid(),
                s.find(self.ppid()).map(ProcessInfo::comm).orElse("?")));
        sb.append(String.format("%7s %7s %-5s %s%n", "PID", "PPID", "STAT", "COMMAND"));
        for (ProcessInfo p : s.processes()) {
            sb.append(String.format("%7d %7d %-5s %s%n", p.pid(), p.ppid(), p.state().letter(), printable(p.comm())));
        }
        sb.append("\nThe tree (pstree style):\n");
        ProcessTree tree = s.tree();
        for (ProcessInfo root : tree.roots()) {
            drawTree(sb, tree, root, "", "");
        }
        sb.append("\nEvery process has a parent: the parent makes the child with fork, and collects its exit "
                + "status with wait when it ends.\n");
        write("01-tree.txt", sb.toString());
        fact("pid", me);
        fact("ppid", self.ppid());
    }

    private static void drawTree(StringBuilder sb, ProcessTree tree, ProcessInfo p, String lead, String childLead) {
        sb.append(lead).append(p.pid()).append(' ').append(printable(p.comm())).append('\n');
        List<ProcessInfo> kids = tree.children(p.pid());
        for (int i = 0; i < kids.size(); i++) {
            boolean last = i == kids.size() - 1;
            drawTree(sb, tree, kids.get(i), childLead + (last ? "`-- " : "|-- "), childLead + (last ? "    " : "|   "));
        }
    }

    private void step2Threads(LabProcesses procs) {
        Process helper = procs.startJava(LabThreads.class, "-Xmx32m", "-XX:+UseSerialGC");
        long pid = Long.parseLong(LabProcesses.readLine(helper));
        ProcessInfo p = table.process(pid);
        List<ThreadInfo> threads = table.threads(pid);
        long workers = threads.stream().filter(t -> t.name().startsWith("lab-worker-")).count();
        StringBuilder sb = new StringBuilder();
        sb.append("# 2. Where threads live\n\n");
        sb.append("ps shows one process:\n");
        sb.append(String.format("%7s %5s %-5s %s%n", "PID", "NLWP", "STAT", "COMMAND"));
        sb.append(String.format("%7d %5d %-5s %s%n%n", pid, p.threads(), p.state().letter(), p.comm()));
        sb.append("ls /proc/").append(pid).append("/task shows ").append(threads.size()).append(" tasks:\n");
        for (ThreadInfo t : threads) {
            sb.append(String.format("%7d  %-16s %s%s%n", t.tid(), printable(t.name()), t.state().letter(),
                    t.name().startsWith("lab-worker-") ? "   <- one of the 4 workers" : explainJvmThread(t)));
        }
        sb.append("\nThe 4 workers the program made are there, and so are the JVM's own threads (the main thread, "
                + "garbage collection, the JIT compilers, reference handling, signal dispatch). To the kernel, a "
                + "thread is a task that shares its address space with the others: same pid for ps, one tid each "
                + "in /proc/PID/task.\n");
        write("02-threads.txt", sb.toString());
        fact("helperPid", pid);
        fact("tasks", threads.size());
        fact("workerThreads", workers);
    }

    private static String explainJvmThread(ThreadInfo t) {
        String n = t.name();
        if (t.isMainThread()) {
            return "   (the launcher's main thread)";
        }
        if (n.startsWith("GC") || n.contains("GC") || n.startsWith("VM Thread")) {
            return "   (JVM: garbage collection / VM operations)";
        }
        if (n.startsWith("C1 ") || n.startsWith("C2 ")) {
            return "   (JVM: JIT compiler)";
        }
        if (n.equals("main")) {
            return "   (JVM: the Java main thread)";
        }
        return "   (JVM)";
    }

    private void step3Zombie(LabProcesses procs) {
        Process sh = procs.start(List.of("sh", "-c",
                "p=$$; (until [ \"$(cat /proc/$p/comm)\" != sh ]; do sleep 0.01; done;"
                + " exec sleep 0) & exec sleep 600"));
        long parent = sh.pid();
        await("a zombie child of " + parent, () -> zombieOf(parent) != null);
        ProcessInfo zombie = zombieOf(parent);
        ProcessInfo par = table.process(parent);
        StringBuilder sb = new StringBuilder();
        sb.append("# 3. A zombie\n\n");
        sb.append("sh starts a child, then becomes `sleep 600` (exec keeps the pid), which never calls wait; the child"
                + " ends as soon as its parent is sleep (a shell would collect a child that ended before its next"
                + " command).\n\n");
        sb.append(String.format("%7s %7s %-5s %s%n", "PID", "PPID", "STAT", "COMMAND"));
        sb.append(String.format("%7d %7d %-5s %s%n", par.pid(), par.ppid(), par.state().letter(), par.comm()));
        sb.append(String.format("%7d %7d %-5s %s  <- zombie: RSS %d bytes, VSZ %d bytes%n", zombie.pid(), zombie.ppid(),
                zombie.state().letter(), zombie.comm(), zombie.rssBytes(), zombie.vszBytes()));
        sb.append("\nA zombie uses no memory: only its exit status and its pid remain, until the parent collects "
                + "them with wait. It still holds a pid, and enough zombies exhaust the pid space. Killing it does "
                + "nothing; ending the parent lets PID 1 adopt and reap it.\n");
        write("03-zombie.txt", sb.toString());
        fact("zombiePid", zombie.pid());
        fact("parentPid", parent);
        fact("zombieRssBytes", zombie.rssBytes());
    }

    private ProcessInfo zombieOf(long parent) {
        return table.snapshot().tree().children(parent).stream().filter(c -> c.state() == ProcessState.ZOMBIE)
                .findFirst().orElse(null);
    }

    private void step4Orphan(LabProcesses procs) {
        Process sh = procs.start(List.of("sh", "-c", "sleep 600 & echo $!; read line"));
        long child = Long.parseLong(LabProcesses.readLine(sh));
        procs.adopt(child);
        long before = table.process(child).ppid();
        try (OutputStream in = sh.getOutputStream()) {
            in.write('\n');
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        await("the parent shell to end", () -> !sh.isAlive());
        await("re-parenting of " + child, () -> table.process(child).ppid() != before);
        long after = table.process(child).ppid();
        ProcessInfo one = table.process(1);
        ProcessInfo adopter = table.process(after);
        boolean init = io.github.procscope.api.diagnose.Inits.isInit(one.comm());
        StringBuilder sb = new StringBuilder();
        sb.append("# 4. When the parent dies first\n\n");
        sb.append("sh -c 'sleep 600 & echo $!; read line': the shell starts a child, then ends.\n\n");
        sb.append(String.format("PPID of %d before the parent ended: %d (sh)%n", child, before));
        sb.append(String.format("PPID of %d after:                   %d (%s)%n%n", child, after, adopter.comm()));
        sb.append(String.format("PID 1 here is: %s%n%n", one.comm()));
        sb.append(after == 1 ? "The orphan was re-parented to PID 1.\n"
                : "The orphan was re-parented to pid " + after + ", a subreaper (it asked the kernel to adopt its "
                + "descendants' orphans, as systemd --user, tini -s and container shims do).\n");
        sb.append(init ? "PID 1 is an init: it waits for the children it adopts, so their zombies are reaped.\n"
                : "PID 1 is not an init: in a container, PID 1 is usually the application, which never waits for "
                + "children it did not start. Adopted zombies then pile up. That is why containers run with "
                + "--init or tini. (Here, the orphan this step made stays a zombie after the lab ends it, until "
                + "the machine restarts: nothing reaps it.)\n");
        write("04-orphan.txt", sb.toString());
        fact("orphanPid", child);
        fact("ppidBefore", before);
        fact("ppidAfter", after);
        fact("pid1Comm", one.comm());
    }

    private void step5Memory(LabProcesses procs) {
        Process helper = procs.startJava(LabMemory.class, "-Xmx16m", "-Xint", "-XX:+UseSerialGC", "-Xshare:auto");
        long pid = Long.parseLong(LabProcesses.readLine(helper).substring("pid ".length()));
        ProcessInfo before = settled(pid);
        command(helper, "reserve", "reserved");
        ProcessInfo reserved = settled(pid);
        command(helper, "touch", "touched");
        ProcessInfo touched = settled(pid);
        StringBuilder sb = new StringBuilder();
        sb.append("# 5. Reserved memory and used memory\n\n");
        sb.append("A JVM helper maps 300 MiB anonymous memory (mmap, MAP_PRIVATE|MAP_ANONYMOUS), then writes one "
                + "byte in each page of the first 80 MiB. ps -o vsz=,rss= -p ").append(pid).append(" (KiB):\n\n");
        sb.append(String.format("%-24s %12s %12s%n", "", "VSZ (KiB)", "RSS (KiB)"));
        sb.append(row("before reserving", before));
        sb.append(row("after reserving 300 MiB", reserved));
        sb.append(row("after touching 80 MiB", touched));
        sb.append(String.format("%nreserving: VSZ +%d MiB, RSS +%.1f MiB%n", (reserved.vszBytes() - before.vszBytes()) >> 20,
                (reserved.rssBytes() - before.rssBytes()) / 1048576.0));
        sb.append(String.format("touching:  VSZ +%d MiB, RSS +%.1f MiB%n%n", (touched.vszBytes() - reserved.vszBytes()) >> 20,
                (touched.rssBytes() - reserved.rssBytes()) / 1048576.0));
        sb.append("VSZ counts the address space a process has reserved; RSS counts the pages that are really in "
                + "physical memory. The kernel gives a page only when it is first touched, so 300 MiB reserved "
                + "costs almost nothing until it is used.\n");
        write("05-memory.txt", sb.toString());
        fact("vszBeforeBytes", before.vszBytes());
        fact("rssBeforeBytes", before.rssBytes());
        fact("vszAfterReserveBytes", reserved.vszBytes());
        fact("rssAfterReserveBytes", reserved.rssBytes());
        fact("vszAfterTouchBytes", touched.vszBytes());
        fact("rssAfterTouchBytes", touched.rssBytes());
    }

    private static String row(String label, ProcessInfo p) {
        return String.format("%-24s %12d %12d%n", label, p.vszBytes() / 1024, p.rssBytes() / 1024);
    }

    private static void command(Process helper, String cmd, String expect) {
        try {
            OutputStream in = helper.getOutputStream();
            in.write((cmd + "\n").getBytes(StandardCharsets.US_ASCII));
            in.flush();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        String reply = LabProcesses.readLine(helper);
        if (!reply.startsWith(expect)) {
            throw new IllegalStateException("memory helper answered '" + reply + "' to " + cmd);
        }
    }

    /** Reads the process until two reads 100 ms apart agree on RSS (the JVM settles after a command). */
    private ProcessInfo settled(long pid) {
        ProcessInfo last = table.process(pid);
        for (int i = 0; i < 50; i++) {
            sleep(100);
            ProcessInfo now = table.process(pid);
            if (now.rssBytes() == last.rssBytes() && now.vszBytes() == last.vszBytes()) {
                return now;
            }
            last = now;
        }
        return last;
    }

    private void step8Notes() {
        long zombieRss = ((Number) facts.get("zombieRssBytes")).longValue();
        long reserveVsz = ((Number) facts.get("vszAfterReserveBytes")).longValue() - ((Number) facts.get("vszBeforeBytes")).longValue();
        long reserveRss = ((Number) facts.get("rssAfterReserveBytes")).longValue() - ((Number) facts.get("rssBeforeBytes")).longValue();
        long touchRss = ((Number) facts.get("rssAfterTouchBytes")).longValue() - ((Number) facts.get("rssAfterReserveBytes")).longValue();
        StringBuilder sb = new StringBuilder();
        sb.append("# 8. 정리\n\n");
        sb.append(String.format(Locale.ROOT, "- 좀비는 이미 끝났지만 부모가 wait로 종료 상태를 거두지 않은 프로세스다. 3단계의 좀비(pid %s)는 "
                + "RSS %d 바이트로 메모리를 쓰지 않고 PID만 차지했다. 부모가 wait를 부르지 않는 코드가 원인이고, kill로는 없어지지 "
                + "않으며 부모가 거두거나 부모가 끝나 init이 거둬야 사라진다.%n", facts.get("zombiePid"), zombieRss));
        sb.append(String.format(Locale.ROOT, "- VSZ는 예약한 주소 공간, RSS는 실제로 물리 메모리에 올라온 크기다. 300 MiB를 예약하자 VSZ는 "
                + "%d MiB 늘었지만 RSS는 %.1f MiB만 늘었고, 80 MiB를 건드린 뒤에야 RSS가 %.1f MiB 늘었다.%n",
                reserveVsz >> 20, reserveRss / 1048576.0, touchRss / 1048576.0));
        Object afterDelete = facts.get("availableAfterDeleteBytes");
        Object afterEnd = facts.get("availableAfterHolderEndsBytes");
        Object afterCreate = facts.get("availableAfterCreateBytes");
        if (afterDelete != null && afterEnd != null && afterCreate != null) {
            long held = ((Number) afterEnd).longValue() - ((Number) afterDelete).longValue();
            sb.append(String.format(Locale.ROOT, "- 지운 파일의 용량은 마지막 참조(이름이나 열린 fd)가 사라질 때 돌아온다. 6단계에서 파일을 "
                    + "지워도 여유 공간은 돌아오지 않았고(지운 뒤 %d MiB 여유), 파일을 연 프로세스가 끝나자 %d MiB가 돌아왔다.%n",
                    ((Number) afterDelete).longValue() >> 20, held >> 20));
        }
        Object status = facts.get("exitStatus");
        if (status != null) {
            sb.append(String.format(Locale.ROOT, "- TERM은 부탁이라 핸들러가 있으면 살아남고(살아 있음: %s), KILL은 커널이 바로 없애므로 "
                    + "종료 상태는 128 + 9 = %s이었다.%n", facts.get("aliveAfterTerm"), status));
        }
        write("08-notes.md", sb.toString());
    }

    /**
     * Writes one of the lab's files, which must not exist yet; a write that fails (a full disk) removes what it
     * had written.
     */
    void write(String name, String text) {
        Path file = out.resolve(name);
        try {
            Files.writeString(file, text, StandardCharsets.UTF_8, StandardOpenOption.CREATE_NEW,
                    StandardOpenOption.WRITE);
        } catch (FileAlreadyExistsException e) {
            throw new IllegalStateException("the lab does not overwrite " + file + ", which appeared while it ran");
        } catch (IOException e) {
            try {
                Files.deleteIfExists(file);
            } catch (IOException ignored) {
                // it could not be written; it cannot be removed either: the message names it
            }
            throw new UncheckedIOException((isDiskFull(e) ? "disk full: cannot write " : "cannot write ") + file, e);
        }
    }

    /** @return whether an I/O error is the file system running out of space */
    static boolean isDiskFull(IOException e) {
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (t.getMessage() != null && t.getMessage().contains("No space left on device")) {
                return true;
            }
        }
        return false;
    }

    /** Refuses an output directory that holds anything: the lab writes only where it cannot destroy a file. */
    static void requireNewOrEmpty(Path dir) {
        if (!Files.exists(dir, java.nio.file.LinkOption.NOFOLLOW_LINKS)) {
            return;
        }
        if (!Files.isDirectory(dir, java.nio.file.LinkOption.NOFOLLOW_LINKS)) {
            throw new IllegalArgumentException("lab --out " + dir + ": it exists and is not a directory; give a new"
                    + " or empty directory");
        }
        try (java.util.stream.Stream<Path> s = Files.list(dir)) {
            long n = s.count();
            if (n > 0) {
                throw new IllegalArgumentException("lab --out " + dir + ": the directory is not empty (" + n
                        + " entries); the lab writes only into a new or empty directory, so that it never"
                        + " overwrites a file of yours");
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot list " + dir, e);
        }
    }

    private static String json(Map<String, Object> facts) {
        try {
            return new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT).writeValueAsString(facts) + "\n";
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    static void await(String what, BooleanSupplier condition) {
        long deadline = System.nanoTime() + WAIT.toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException("timed out waiting for " + what);
            }
            sleep(20);
        }
    }

    static void sleep(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted", e);
        }
    }

    static String printable(String s) {
        return s.replace("\n", "\\n").replace("\t", "\\t");
    }
}
