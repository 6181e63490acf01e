package io.github.procscope.linux.events;

import io.github.procscope.linux.parse.ProcEventParser;
import io.github.procscope.linux.parse.StatParser;
import io.github.procscope.linux.sys.ProcConnectorSocket;
import io.github.procscope.testing.Fixtures;

import io.github.procscope.api.events.EventType;
import io.github.procscope.api.process.ProcessStat;
import org.junit.jupiter.api.Test;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

/**
 * A process's name through events: the process connector's {@code PROC_EVENT_COMM} parsed, and an exec told from a
 * rename between two reads of a process's stat (what snapshot diffing and pidfds see).
 */
class ProcessNamesTest {
    private static final Path STAT = Path.of("/proc/100/stat");
    private static final long PF_KTHREAD = 0x0020_0000L;
    private static final long PF_FORKNOEXEC = 0x40;

    /** One {@code proc_event} datagram: nlmsghdr, cn_msg for CN_IDX_PROC, then the event with its payload. */
    private static byte[] datagram(int what, byte[] payload) {
        int eventLength = 16 + payload.length;
        int length = 16 + 20 + eventLength;
        ByteBuffer b = ByteBuffer.allocate(length).order(ByteOrder.nativeOrder());
        b.putInt(length).putShort((short) 3).putShort((short) 0).putInt(1).putInt(0); // nlmsghdr: NLMSG_DONE
        b.putInt(ProcConnectorSocket.CN_IDX_PROC).putInt(ProcConnectorSocket.CN_VAL_PROC).putInt(0).putInt(0)
                .putShort((short) eventLength).putShort((short) 0); // cn_msg
        b.putInt(what).putInt(0).putLong(123_456_789L); // what, cpu, timestamp_ns
        b.put(payload);
        return b.array();
    }

    private static byte[] commPayload(int pid, int tgid, byte[] name) {
        ByteBuffer b = ByteBuffer.allocate(24).order(ByteOrder.nativeOrder());
        b.putInt(pid).putInt(tgid).put(name, 0, Math.min(name.length, 16));
        return b.array();
    }

    @Test
    void theConnectorsRenameEventCarriesTheNewName() {
        List<ProcEventParser.Raw> out = new ArrayList<>();
        byte[] d = datagram(ProcEventParser.PROC_EVENT_COMM, commPayload(4100, 4100,
                "stage-two".getBytes(StandardCharsets.US_ASCII)));
        ProcEventParser.parse(d, d.length, out);
        assertEquals(1, out.size());
        assertEquals(ProcEventParser.PROC_EVENT_COMM, out.get(0).what());
        assertEquals(4100, out.get(0).pid());
        assertEquals("stage-two", out.get(0).comm());

        // fifteen bytes and the NUL: the longest name; UTF-8 decoded
        out.clear();
        byte[] full = "0123456789abcd\u00e9".getBytes(StandardCharsets.UTF_8);
        byte[] f = datagram(ProcEventParser.PROC_EVENT_COMM, commPayload(4100, 4100, full));
        ProcEventParser.parse(f, f.length, out);
        assertEquals("0123456789abcd\u00e9", out.get(0).comm());

        // a thread naming itself is not the process renamed
        out.clear();
        byte[] t = datagram(ProcEventParser.PROC_EVENT_COMM, commPayload(4105, 4100,
                "worker".getBytes(StandardCharsets.US_ASCII)));
        ProcEventParser.parse(t, t.length, out);
        assertEquals(List.of(), out);

        // cut short: nothing, no exception
        ProcEventParser.parse(d, d.length - 10, out);
        assertEquals(List.of(), out);
    }

    /** A stat line whose name, flags, addresses (26-28, 45-47) and vsize are given. */
    private static ProcessStat stat(String comm, long flags, long vsize, long code, long stack, long data) {
        StringBuilder b = new StringBuilder("100 (" + comm + ") S");
        for (int i = 4; i <= 52; i++) {
            long v = switch (i) {
                case 9 -> flags;
                case 18 -> 20;
                case 20 -> 1;
                case 23 -> vsize;
                case 26 -> code;
                case 27 -> code == 0 || code == 1 ? code : code + 0x10000;
                case 28 -> stack;
                case 45 -> data;
                case 46 -> data == 0 ? 0 : data + 0x1000;
                case 47 -> data == 0 ? 0 : data + 0x2000;
                default -> 0;
            };
            b.append(' ').append(v);
        }
        byte[] bytes = b.append('\n').toString().getBytes(StandardCharsets.UTF_8);
        return StatParser.parse(STAT, bytes, bytes.length, Fixtures.CONSTANTS);
    }

    @Test
    void aNewNameInTheSameAddressSpaceIsARename() {
        ProcessStat before = stat("python3", 0, 1 << 30, 0x555555554000L, 0x7ffd00000000L, 0x555555600000L);
        ProcessStat renamed = stat("dataloader-0", 0, 1 << 30, 0x555555554000L, 0x7ffd00000000L, 0x555555600000L);
        assertEquals(EventType.RENAME, LinuxProcessEvents.change(before, renamed));
        // its memory may grow meanwhile: the addresses of code, data and stack say it is the same program
        ProcessStat grown = stat("dataloader-0", 0, 2L << 30, 0x555555554000L, 0x7ffd00000000L, 0x555555600000L);
        assertEquals(EventType.RENAME, LinuxProcessEvents.change(before, grown));
        assertNull(LinuxProcessEvents.change(before, before));
    }

    @Test
    void aReplacedAddressSpaceIsAnExecWhateverTheName() {
        ProcessStat before = stat("sh", 0, 1 << 30, 0x555555554000L, 0x7ffd00000000L, 0x555555600000L);
        ProcessStat exec = stat("sleep", 0, 1 << 30, 0x563412340000L, 0x7ffe11110000L, 0x563412400000L);
        assertEquals(EventType.EXEC, LinuxProcessEvents.change(before, exec));
        ProcessStat sameName = stat("sh", 0, 1 << 30, 0x563412340000L, 0x7ffe11110000L, 0x563412400000L);
        assertEquals(EventType.EXEC, LinuxProcessEvents.change(before, sameName), "exec sh script.sh");
        // forked, not exec'd; then exec'd: the kernel clears PF_FORKNOEXEC
        ProcessStat forked = stat("sh", PF_FORKNOEXEC, 1 << 30, 1, 1, 0);
        ProcessStat execd = stat("sh", 0, 1 << 30, 1, 1, 0);
        assertEquals(EventType.EXEC, LinuxProcessEvents.change(forked, execd));
    }

    @Test
    void aKernelThreadRenamesItself() {
        ProcessStat kworker = stat("kworker/0:1", PF_KTHREAD, 0, 0, 0, 0);
        ProcessStat busy = stat("kworker/0:1-events", PF_KTHREAD, 0, 0, 0, 0);
        assertEquals(EventType.RENAME, LinuxProcessEvents.change(kworker, busy));
    }

    @Test
    void withoutSightOfTheAddressesTheSizeDecides() {
        // another user's process: the kernel prints 1 for its code and stack addresses, 0 for the rest
        ProcessStat before = stat("postgres", 0, 300L << 20, 1, 1, 0);
        assertEquals(EventType.RENAME, LinuxProcessEvents.change(before, stat("postgres: wal", 0, 300L << 20, 1, 1, 0)));
        assertEquals(EventType.EXEC, LinuxProcessEvents.change(before, stat("psql", 0, 20L << 20, 1, 1, 0)));
    }
}
