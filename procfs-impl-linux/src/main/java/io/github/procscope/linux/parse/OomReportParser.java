package io.github.procscope.linux.parse;

import io.github.procscope.api.diagnose.OomKill;

import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * Recognises OOM kills among kernel log messages, in the wording of several kernel generations:
 * <ul>
 *   <li>{@code Out of memory: Killed process N (comm) total-vm:..kB, anon-rss:..kB, file-rss:..kB,
 *       shmem-rss:..kB, UID:.. pgtables:..kB oom_score_adj:..} (5.x and later; with
 *       {@code Memory cgroup out of memory:} in front when a cgroup limit was hit);</li>
 *   <li>{@code oom-kill:constraint=CONSTRAINT_MEMCG,...,task_memcg=/path,task=comm,pid=N,uid=U} (4.19 and
 *       later), merged into the kill of the same pid;</li>
 *   <li>{@code Out of memory: Kill process N (comm) score S or sacrifice child} and
 *       {@code Memory cgroup out of memory: Kill process N (comm) ...} followed by
 *       {@code Killed process N (comm) total-vm:...} (3.x to 4.x);</li>
 *   <li>{@code Killed process N (comm) vsz:..kB, anon-rss:..kB, file-rss:..kB} (2.6).</li>
 * </ul>
 * A message that does not match is ignored; a malformed number makes that figure empty.
 */
public final class OomReportParser {
    private static final String KILLED = "Killed process ";
    private static final String MEMCG = "Memory cgroup out of memory";

    private OomReportParser() {
    }

    /**
     * @param records  kernel log records, oldest first
     * @param bootTime when the machine booted, to turn log timestamps into instants
     * @return the OOM kills found, oldest first
     */
    public static List<OomKill> find(List<KmsgRecord> records, Instant bootTime) {
        List<OomKill> out = new ArrayList<>();
        Map<Long, Map<String, String>> constraintLines = new HashMap<>();
        Map<Long, Boolean> memcgAnnounced = new HashMap<>();
        for (KmsgRecord r : records) {
            String m = r.message();
            if (m.startsWith("oom-kill:")) {
                Map<String, String> kv = keyValues(m.substring("oom-kill:".length()));
                OptionalLong pid = number(kv.get("pid"));
                if (pid.isPresent()) {
                    constraintLines.put(pid.getAsLong(), kv);
                }
                continue;
            }
            int killAt = m.indexOf(KILLED);
            if (killAt < 0) {
                int oldKill = Math.max(m.indexOf(": Kill process "), m.indexOf(": kill process "));
                if (oldKill >= 0 && m.startsWith(MEMCG)) {
                    OptionalLong pid = leadingNumber(m, oldKill + ": Kill process ".length());
                    pid.ifPresent(p -> memcgAnnounced.put(p, true));
                }
                continue;
            }
            int pidStart = killAt + KILLED.length();
            OptionalLong pid = leadingNumber(m, pidStart);
            int open = m.indexOf(" (", pidStart);
            if (pid.isEmpty() || open < 0) {
                continue;
            }
            int figures = firstOf(m, open, ") total-vm:", ") vsz:", "), UID", ")\n");
            int close = figures >= 0 ? figures : m.lastIndexOf(')');
            if (close <= open) {
                continue;
            }
            String comm = m.substring(open + 2, close);
            String rest = m.substring(close + 1);
            Map<String, String> kv = constraintLines.remove(pid.getAsLong());
            boolean memcg = m.startsWith(MEMCG) || Boolean.TRUE.equals(memcgAnnounced.remove(pid.getAsLong()))
                    || (kv != null && "CONSTRAINT_MEMCG".equals(kv.get("constraint")));
            OptionalLong totalVm = kib(rest, "total-vm:");
            if (totalVm.isEmpty()) {
                totalVm = kib(rest, "vsz:");
            }
            OptionalLong uid = number(field(rest, "UID:"));
            if (uid.isEmpty() && kv != null) {
                uid = number(kv.get("uid"));
            }
            out.add(new OomKill(pid.getAsLong(), comm,
                    r.micros() >= 0 ? Optional.of(bootTime.plusNanos(r.micros() * 1000)) : Optional.empty(),
                    totalVm, kib(rest, "anon-rss:"), kib(rest, "file-rss:"), kib(rest, "shmem-rss:"), uid, memcg,
                    kv == null ? Optional.empty() : Optional.ofNullable(kv.get("task_memcg")),
                    kv == null ? Optional.empty() : Optional.ofNullable(kv.get("constraint"))));
        }
        return out;
    }

    private static int firstOf(String s, int from, String... needles) {
        int best = -1;
        for (String n : needles) {
            int i = s.indexOf(n, from);
            if (i >= 0 && (best < 0 || i < best)) {
                best = i;
            }
        }
        return best;
    }

    /** {@code a=1,b=2,c=(null)}: comma-separated key=value pairs. */
    private static Map<String, String> keyValues(String s) {
        Map<String, String> kv = new HashMap<>();
        int i = 0;
        while (i < s.length()) {
            int comma = s.indexOf(',', i);
            int end = comma < 0 ? s.length() : comma;
            int eq = s.indexOf('=', i);
            if (eq > i && eq < end) {
                kv.put(s.substring(i, eq).trim(), s.substring(eq + 1, end).trim());
            }
            i = end + 1;
        }
        return kv;
    }

    /** The text after {@code key} up to the next comma or blank. */
    private static String field(String s, String key) {
        int i = s.indexOf(key);
        if (i < 0) {
            return null;
        }
        int start = i + key.length();
        int end = start;
        while (end < s.length() && s.charAt(end) != ',' && s.charAt(end) != ' ') {
            end++;
        }
        return s.substring(start, end);
    }

    private static OptionalLong kib(String s, String key) {
        String v = field(s, key);
        if (v == null || !v.endsWith("kB")) {
            return OptionalLong.empty();
        }
        OptionalLong n = number(v.substring(0, v.length() - 2));
        return n.isPresent() && n.getAsLong() <= Long.MAX_VALUE / 1024 ? OptionalLong.of(n.getAsLong() * 1024)
                : OptionalLong.empty();
    }

    private static OptionalLong leadingNumber(String s, int from) {
        int end = from;
        while (end < s.length() && s.charAt(end) >= '0' && s.charAt(end) <= '9') {
            end++;
        }
        return end == from ? OptionalLong.empty() : number(s.substring(from, end));
    }

    private static OptionalLong number(String s) {
        if (s == null || s.isEmpty() || s.length() > 18) {
            return OptionalLong.empty();
        }
        for (int i = 0; i < s.length(); i++) {
            if (s.charAt(i) < '0' || s.charAt(i) > '9') {
                return OptionalLong.empty();
            }
        }
        return OptionalLong.of(Long.parseLong(s));
    }
}
