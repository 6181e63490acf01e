package io.github.procscope.linux.parse;

import io.github.procscope.linux.sys.ByteCursor;
import io.github.procscope.linux.sys.ProcConnectorSocket;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.List;

/**
 * Parser of the process connector's datagrams: netlink messages ({@code struct nlmsghdr}) carrying a
 * {@code struct cn_msg} for {@code CN_IDX_PROC} whose payload is a {@code struct proc_event}
 * ({@code linux/cn_proc.h}), in the machine's byte order: fork, exec, comm (a new name, NUL-padded to 16 bytes)
 * and exit. Only processes are reported: the creation, renaming and end of threads (a pid that is not its thread
 * group's id) are skipped.
 */
public final class ProcEventParser {
    public static final int PROC_EVENT_FORK = 0x1;
    public static final int PROC_EVENT_EXEC = 0x2;
    public static final int PROC_EVENT_COMM = 0x200;
    /** {@code TASK_COMM_LEN}: the name field of a {@code comm_proc_event}, NUL-padded. */
    private static final int COMM_LEN = 16;
    public static final int PROC_EVENT_EXIT = 0x80000000;
    private static final int NLMSG_HDRLEN = 16;
    private static final int CN_MSG_LEN = 20;

    private ProcEventParser() {
    }

    /**
     * One event.
     *
     * @param what      {@link #PROC_EVENT_FORK}, {@link #PROC_EVENT_EXEC}, {@link #PROC_EVENT_COMM} or
     *                  {@link #PROC_EVENT_EXIT}
     * @param pid       the process (the child for a fork)
     * @param ppid      the parent (for a fork: the forking process; for an exit: the parent then); 0 when not given
     * @param exitCode  the wait status of an exit ({@code task->exit_code}); 0 otherwise
     * @param timestampNanos the kernel's monotonic time of the event
     * @param comm      the new name of a {@code PROC_EVENT_COMM}, or of an exec as read when it arrived; else
     *                  {@code null}
     */
    public record Raw(int what, long pid, long ppid, int exitCode, long timestampNanos, String comm) {
        Raw(int what, long pid, long ppid, int exitCode, long timestampNanos) {
            this(what, pid, ppid, exitCode, timestampNanos, null);
        }

        /** @return this event with a name */
        public Raw withComm(String name) {
            return new Raw(what, pid, ppid, exitCode, timestampNanos, name);
        }

        /** @return whether it ended by {@code exit()} (not by a signal) */
        public boolean exited() {
            return (exitCode & 0x7f) == 0;
        }

        /** @return the exit code of an {@code exit()} */
        public int code() {
            return (exitCode >> 8) & 0xff;
        }

        /** @return the signal that ended it */
        public int signal() {
            return exitCode & 0x7f;
        }

        /** @return whether a core was dumped */
        public boolean coreDumped() {
            return (exitCode & 0x80) != 0;
        }
    }

    /**
     * Appends the process events in one datagram to {@code out}; anything else (acknowledgements, other
     * connector messages, truncated messages) is skipped.
     *
     * @param buf the datagram
     * @param len its length
     * @param out where the events go
     */
    public static void parse(byte[] buf, int len, List<Raw> out) {
        ByteBuffer b = ByteBuffer.wrap(buf, 0, Math.min(len, buf.length)).order(ByteOrder.nativeOrder());
        int off = 0;
        int end = Math.min(len, buf.length);
        while (off + NLMSG_HDRLEN <= end) {
            long msgLen = Integer.toUnsignedLong(b.getInt(off));
            if (msgLen < NLMSG_HDRLEN || off + msgLen > end) {
                return;
            }
            int cn = off + NLMSG_HDRLEN;
            int ev = cn + CN_MSG_LEN;
            if (ev + 16 <= off + msgLen && b.getInt(cn) == ProcConnectorSocket.CN_IDX_PROC
                    && b.getInt(cn + 4) == ProcConnectorSocket.CN_VAL_PROC) {
                int dataLen = Short.toUnsignedInt(b.getShort(cn + 16));
                int dataEnd = (int) Math.min(off + msgLen, (long) ev + dataLen);
                int what = b.getInt(ev);
                long ts = b.getLong(ev + 8);
                int d = ev + 16;
                if (what == PROC_EVENT_FORK && d + 16 <= dataEnd) {
                    long parentTgid = Integer.toUnsignedLong(b.getInt(d + 4));
                    long child = Integer.toUnsignedLong(b.getInt(d + 8));
                    long childTgid = Integer.toUnsignedLong(b.getInt(d + 12));
                    if (child == childTgid && child > 0) {
                        out.add(new Raw(what, child, parentTgid, 0, ts));
                    }
                } else if (what == PROC_EVENT_EXEC && d + 8 <= dataEnd) {
                    long pid = Integer.toUnsignedLong(b.getInt(d));
                    long tgid = Integer.toUnsignedLong(b.getInt(d + 4));
                    if (pid == tgid && pid > 0) {
                        out.add(new Raw(what, pid, 0, 0, ts));
                    }
                } else if (what == PROC_EVENT_COMM && d + 8 + COMM_LEN <= dataEnd) {
                    long pid = Integer.toUnsignedLong(b.getInt(d));
                    long tgid = Integer.toUnsignedLong(b.getInt(d + 4));
                    if (pid == tgid && pid > 0) { // a thread's own name is not the process's
                        int n = 0;
                        while (n < COMM_LEN && buf[d + 8 + n] != 0) {
                            n++;
                        }
                        out.add(new Raw(what, pid, 0, 0, ts, ByteCursor.text(buf, d + 8, d + 8 + n)));
                    }
                } else if (what == PROC_EVENT_EXIT && d + 16 <= dataEnd) {
                    long pid = Integer.toUnsignedLong(b.getInt(d));
                    long tgid = Integer.toUnsignedLong(b.getInt(d + 4));
                    int code = b.getInt(d + 8);
                    long parentTgid = d + 24 <= dataEnd ? Integer.toUnsignedLong(b.getInt(d + 20)) : 0;
                    if (pid == tgid && pid > 0) {
                        out.add(new Raw(what, pid, parentTgid, code, ts));
                    }
                }
            }
            off += (int) ((msgLen + 3) & ~3L);
        }
    }
}
