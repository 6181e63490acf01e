package io.github.procscope.linux.parse;

import io.github.procscope.api.core.ProcfsParseException;
import io.github.procscope.api.memory.MemoryRegion;
import io.github.procscope.api.memory.RegionUsage;
import io.github.procscope.api.memory.SmapsCounters;
import io.github.procscope.linux.sys.ByteCursor;
import io.github.procscope.linux.sys.ProcBuffer;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * Parser of {@code /proc/PID/smaps} and {@code /proc/PID/smaps_rollup} ({@code proc(5)},
 * {@code Documentation/filesystems/proc.rst}). In {@code smaps} each region is a {@code maps} header line
 * followed by {@code Key:   value kB} lines and a {@code VmFlags:} line; {@code smaps_rollup} is a single
 * block whose header spans the whole address space and ends in {@code [rollup]}.
 *
 * <p>Sizes are converted from kB to bytes. Keys are matched by name, so their order does not matter and
 * keys this parser does not know (kernels add them) are skipped. {@code Rss}, {@code Pss},
 * {@code Shared_Clean}, {@code Shared_Dirty}, {@code Private_Clean}, {@code Private_Dirty},
 * {@code Referenced}, {@code Anonymous}, {@code AnonHugePages}, {@code Swap} and {@code Locked} are
 * required (every kernel since 2.6.38 prints them); {@code KernelPageSize} and {@code MMUPageSize} are
 * required in {@code smaps}.
 */
public final class SmapsParser {
    private static final long KIB = 1024;

    // Slots of the counters, in SmapsCounters order.
    private static final int RSS = 0;
    private static final int PSS = 1;
    private static final int PSS_DIRTY = 2;
    private static final int PSS_ANON = 3;
    private static final int PSS_FILE = 4;
    private static final int PSS_SHMEM = 5;
    private static final int SHARED_CLEAN = 6;
    private static final int SHARED_DIRTY = 7;
    private static final int PRIVATE_CLEAN = 8;
    private static final int PRIVATE_DIRTY = 9;
    private static final int REFERENCED = 10;
    private static final int ANONYMOUS = 11;
    private static final int KSM = 12;
    private static final int LAZY_FREE = 13;
    private static final int ANON_HUGE = 14;
    private static final int SHMEM_PMD = 15;
    private static final int FILE_PMD = 16;
    private static final int SHARED_HUGETLB = 17;
    private static final int PRIVATE_HUGETLB = 18;
    private static final int SWAP = 19;
    private static final int SWAP_PSS = 20;
    private static final int LOCKED = 21;
    private static final int KERNEL_PAGE_SIZE = 22;
    private static final int MMU_PAGE_SIZE = 23;
    private static final int SLOTS = 24;

    private static final int[] REQUIRED = {RSS, PSS, SHARED_CLEAN, SHARED_DIRTY, PRIVATE_CLEAN, PRIVATE_DIRTY,
        REFERENCED, ANONYMOUS, ANON_HUGE, SWAP, LOCKED};
    private static final String[] NAMES = {"Rss", "Pss", "Pss_Dirty", "Pss_Anon", "Pss_File", "Pss_Shmem",
        "Shared_Clean", "Shared_Dirty", "Private_Clean", "Private_Dirty", "Referenced", "Anonymous", "KSM",
        "LazyFree", "AnonHugePages", "ShmemPmdMapped", "FilePmdMapped", "Shared_Hugetlb", "Private_Hugetlb",
        "Swap", "SwapPss", "Locked", "KernelPageSize", "MMUPageSize"};

    private static final Map<String, Integer> SLOT_BY_NAME = new HashMap<>();

    static {
        for (int i = 0; i < NAMES.length; i++) {
            SLOT_BY_NAME.put(NAMES[i], i);
        }
    }

    private SmapsParser() {
    }

    /**
     * @param source the file, for messages
     * @param buf    its bytes
     * @param len    how many are valid
     * @return the regions with their counters; none for an empty file (a kernel thread or a zombie)
     * @throws ProcfsParseException if the content is malformed
     */
    static List<MemoryRegion> parseSmaps(Path source, byte[] buf, int len) {
        Regions r = new Regions(() -> source);
        r.lines(buf, 0, len);
        return r.finish();
    }

    /**
     * The regions of one {@code smaps} file, parsed as its lines arrive ({@link ProcBuffer#stream}), so that the
     * file is never held whole: only the regions are kept, and values that repeat from region to region (the
     * counters and flags of the many alike regions of a large process, its file names, devices and permissions)
     * are shared between them rather than copied. Not thread-safe; one per file.
     */
    public static final class Regions implements ProcBuffer.LineSink {
        private final ByteCursor.Source source;
        private final List<MemoryRegion> out = new ArrayList<>(64);
        private final java.util.function.Consumer<? super MemoryRegion> sink;
        private final int shareMax;
        private final MapsParser.Shared shared = new MapsParser.Shared();
        private final Block block = new Block();
        private final Map<String, List<String>> flagLists = new HashMap<>();
        private final Map<RegionUsage, Optional<RegionUsage>> usages = new HashMap<>();
        private MapsParser.Header header;
        private List<String> flags = List.of();
        private long count;

        /** Regions kept, for {@link #finish()}. */
        public Regions(ByteCursor.Source source) {
            this(source, null);
        }

        /**
         * @param sink where each region goes as soon as its block ends, none being kept; or {@code null} to keep
         *             them for {@link #finish()}
         */
        public Regions(ByteCursor.Source source, java.util.function.Consumer<? super MemoryRegion> sink) {
            this.source = source;
            this.sink = sink;
            // Handed-on regions are the caller's to drop: only a few values are kept for sharing then.
            this.shareMax = sink == null ? SHARED_MAX : 256;
        }

        /** @return how many regions were read so far */
        public long count() {
            return count;
        }

        @Override
        public void lines(byte[] buf, int from, int to) {
            ByteCursor c = new ByteCursor(source, buf, from, to);
            while (!c.atEnd()) {
                if (c.atLineEnd()) {
                    c.nextLine();
                    continue;
                }
                if (isHeader(c)) {
                    if (header != null) {
                        emit(finishRegion());
                    }
                    header = MapsParser.header(c, shared);
                    block.clear();
                    flags = List.of();
                    c.nextLine();
                    continue;
                }
                if (header == null) {
                    throw c.fail("expected a region header line before the counters");
                }
                List<String> f = field(c, block, flagLists, shareMax);
                if (f != null) {
                    flags = f;
                }
                c.nextLine();
            }
        }

        /** @return the regions, the last one finished */
        public List<MemoryRegion> finish() {
            if (header != null) {
                emit(finishRegion());
                header = null;
            }
            return out;
        }

        private void emit(MemoryRegion r) {
            count++;
            if (sink == null) {
                out.add(r);
            } else {
                sink.accept(r);
            }
        }

        private MemoryRegion finishRegion() {
            SmapsCounters counters = counters(block, reason -> fail(reason));
            long size = header.end() - header.start();
            if (Long.compareUnsigned(block.values[RSS], size) > 0 || Long.compareUnsigned(block.values[PSS], block.values[RSS]) > 0
                    || Long.compareUnsigned(block.values[SWAP], size) > 0) {
                throw fail("the region's Rss, Pss or Swap exceeds its size of " + size + " bytes");
            }
            if (!block.seen[KERNEL_PAGE_SIZE] || !block.seen[MMU_PAGE_SIZE]) {
                throw fail("the region lacks its KernelPageSize or MMUPageSize line");
            }
            if (block.values[KERNEL_PAGE_SIZE] <= 0 || block.values[MMU_PAGE_SIZE] <= 0) {
                throw fail("the region's page size is 0");
            }
            RegionUsage usage = new RegionUsage(block.values[KERNEL_PAGE_SIZE], block.values[MMU_PAGE_SIZE], counters,
                    flags);
            Optional<RegionUsage> one = usages.get(usage);
            if (one == null) {
                one = Optional.of(usage);
                if (usages.size() < shareMax) {
                    usages.put(usage, one);
                }
            }
            return header.region(one);
        }

        /** A region's block is checked at its end, when its header line is gone: the message shows the header. */
        private ProcfsParseException fail(String reason) {
            return new ProcfsParseException(source.path(), header.region(Optional.empty()).toString(), reason);
        }
    }

    /** At most this many distinct values are kept for sharing (each costs a map entry). */
    static final int SHARED_MAX = 1 << 16;

    /**
     * @param source the file, for messages
     * @param buf    its bytes
     * @param len    how many are valid; at least one byte (an empty file means no address space)
     * @return the process's summed counters
     * @throws ProcfsParseException if the content is malformed or holds more than one block
     */
    public static SmapsCounters parseRollup(Path source, byte[] buf, int len) {
        ByteCursor c = new ByteCursor(source, buf, len);
        if (c.atEnd() || !isHeader(c)) {
            throw c.fail("expected the [rollup] header line");
        }
        MapsParser.header(c);
        c.nextLine();
        Block block = new Block();
        while (!c.atEnd()) {
            if (c.atLineEnd()) {
                c.nextLine();
                continue;
            }
            if (isHeader(c)) {
                throw c.fail("smaps_rollup holds a single block; found a second header");
            }
            field(c, block);
            c.nextLine();
        }
        return counters(block, reason -> c.failAt(0, reason));
    }

    /** A header line starts with a hexadecimal address followed by '-'; a field line with "Name:". */
    private static boolean isHeader(ByteCursor c) {
        byte[] b = c.buffer();
        for (int i = c.position(); i < c.end(); i++) {
            byte x = b[i];
            if (x == '-') {
                return i > c.position();
            }
            if (x == ':' || x == ' ' || x == '\n' || x == '\t') {
                return false;
            }
        }
        return false;
    }

    /**
     * Parses one {@code Key: value} line into the block, leaving the cursor at the line's end.
     *
     * @return the flags of a {@code VmFlags} line, or null for any other line
     */
    private static List<String> field(ByteCursor c, Block block) {
        return field(c, block, null, 0);
    }

    /**
     * As {@link #field(ByteCursor, Block)}, sharing equal {@code VmFlags} lists through {@code flagLists}, which
     * keeps at most {@code max} of them.
     */
    private static List<String> field(ByteCursor c, Block block, Map<String, List<String>> flagLists, int max) {
        int keyStart = c.position();
        byte[] b = c.buffer();
        while (!c.atLineEnd() && c.peek() != ':') {
            c.next();
        }
        if (c.atLineEnd()) {
            throw c.failAt(keyStart, "expected \"Key:\"");
        }
        String key = new String(b, keyStart, c.position() - keyStart, StandardCharsets.ISO_8859_1);
        c.expect(':');
        c.skipBlanks();
        int slot = slot(key);
        if (slot >= 0) {
            if (block.seen[slot]) {
                throw c.failAt(keyStart, "duplicate " + key + " line");
            }
            block.values[slot] = kib(c, key);
            block.seen[slot] = true;
            return null;
        }
        if (key.equals("VmFlags")) {
            String line = flagLists == null ? null : c.restOfLine();
            List<String> known = line == null ? null : flagLists.get(line);
            if (known != null) {
                return known;
            }
            if (line != null) {
                c.position(c.position() - line.length());
            }
            List<String> flags = new ArrayList<>(12);
            while (!c.atLineEnd()) {
                String w = c.word();
                if (!w.isEmpty()) {
                    flags.add(w.intern());
                }
                c.skipBlanks();
            }
            List<String> copy = List.copyOf(flags);
            if (line != null && flagLists.size() < max) {
                flagLists.put(line, copy);
            }
            return copy;
        }
        c.restOfLine(); // Size (implied by the addresses), THPeligible, ProtectionKey, and keys of newer kernels
        return null;
    }

    private static int slot(String key) {
        Integer i = SLOT_BY_NAME.get(key);
        return i == null ? -1 : i;
    }

    private static long kib(ByteCursor c, String key) {
        long v = c.unsignedAtMost(Long.MAX_VALUE / KIB, key);
        c.skipBlanks();
        if (!c.skipIf('k')) {
            throw c.fail("expected \"kB\"");
        }
        c.expect('B');
        c.skipBlanks();
        if (!c.atLineEnd()) {
            throw c.fail("unexpected text after the size");
        }
        return v * KIB;
    }

    private static SmapsCounters counters(Block block, java.util.function.Function<String, ProcfsParseException> fail) {
        for (int r : REQUIRED) {
            if (!block.seen[r]) {
                throw fail.apply("the block lacks its " + NAMES[r] + " line");
            }
        }
        long[] v = block.values;
        return new SmapsCounters(v[RSS], v[PSS], block.opt(PSS_DIRTY), block.opt(PSS_ANON), block.opt(PSS_FILE),
                block.opt(PSS_SHMEM), v[SHARED_CLEAN], v[SHARED_DIRTY], v[PRIVATE_CLEAN], v[PRIVATE_DIRTY],
                v[REFERENCED], v[ANONYMOUS], block.opt(KSM), block.opt(LAZY_FREE), v[ANON_HUGE], block.opt(SHMEM_PMD),
                block.opt(FILE_PMD), block.opt(SHARED_HUGETLB), block.opt(PRIVATE_HUGETLB), v[SWAP],
                block.opt(SWAP_PSS), v[LOCKED]);
    }

    /** The values of one block, with which keys were present. */
    private static final class Block {
        private static final OptionalLong NONE = OptionalLong.of(0);
        final long[] values = new long[SLOTS];
        final boolean[] seen = new boolean[SLOTS];

        OptionalLong opt(int slot) {
            return !seen[slot] ? OptionalLong.empty() : values[slot] == 0 ? NONE : OptionalLong.of(values[slot]);
        }

        void clear() {
            java.util.Arrays.fill(values, 0L);
            java.util.Arrays.fill(seen, false);
        }
    }
}
