package io.github.procscope.linux.internal;

import io.github.procscope.api.events.EventsUnavailableException;
import jnr.ffi.Memory;
import jnr.ffi.Pointer;

/**
 * A netlink socket subscribed to the kernel's process connector ({@code NETLINK_CONNECTOR}, group
 * {@code CN_IDX_PROC}; {@code linux/cn_proc.h}, {@code linux/connector.h}). Small methods over the native calls:
 * open and subscribe, receive one datagram, close.
 */
public final class ProcConnectorSocket implements AutoCloseable {
    public static final int AF_NETLINK = 16;
    public static final int SOCK_DGRAM = 2;
    public static final int SOCK_CLOEXEC = 0x80000;
    public static final int NETLINK_CONNECTOR = 11;
    public static final int CN_IDX_PROC = 1;
    public static final int CN_VAL_PROC = 1;
    public static final int PROC_CN_MCAST_LISTEN = 1;
    public static final int PROC_CN_MCAST_IGNORE = 2;
    public static final int NLMSG_DONE = 3;
    public static final int SOL_SOCKET = 1;
    public static final int SO_RCVBUF = 8;
    public static final int SO_RCVTIMEO = 20;
    public static final int SO_RCVBUFFORCE = 33;
    public static final int EAGAIN = 11;
    public static final int EINTR = 4;
    public static final int ENOBUFS = 105;
    /** Result of {@link #receive}: nothing arrived within the timeout. */
    public static final int TIMEOUT = 0;
    /** Result of {@link #receive}: the kernel dropped messages (the socket buffer overran). */
    public static final int OVERRUN = -1;

    private final NativeLibc.Loaded n;
    private final int fd;
    private final Pointer buf;
    private volatile boolean closed;

    private ProcConnectorSocket(NativeLibc.Loaded n, int fd, int bufSize) {
        this.n = n;
        this.fd = fd;
        this.buf = Memory.allocateDirect(n.runtime(), bufSize);
    }

    /**
     * Opens the socket, binds it to the process connector's group and asks the kernel to multicast process
     * events.
     *
     * @param receiveBufferBytes the socket's receive buffer (forced past {@code rmem_max} where permitted)
     * @param timeoutMs          how long one {@link #receive} waits at most
     * @return the subscribed socket
     * @throws EventsUnavailableException naming the call that failed and its errno
     */
    public static ProcConnectorSocket open(int receiveBufferBytes, int timeoutMs) {
        NativeLibc.Loaded n;
        try {
            n = NativeLibc.get("socket(AF_NETLINK)");
        } catch (RuntimeException e) {
            throw new EventsUnavailableException("the process connector needs native calls: " + e.getMessage());
        }
        int fd = n.libc().socket(AF_NETLINK, SOCK_DGRAM | SOCK_CLOEXEC, NETLINK_CONNECTOR);
        if (fd < 0) {
            throw failure("socket(AF_NETLINK, NETLINK_CONNECTOR)", n.runtime().getLastError());
        }
        ProcConnectorSocket s = new ProcConnectorSocket(n, fd, 64 * 1024);
        try {
            Pointer v = Memory.allocateDirect(n.runtime(), 16);
            v.putInt(0, receiveBufferBytes);
            if (n.libc().setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, v, 4) != 0) {
                n.libc().setsockopt(fd, SOL_SOCKET, SO_RCVBUF, v, 4); // unprivileged: capped at rmem_max
            }
            v.putLong(0, timeoutMs / 1000);
            v.putLong(8, (timeoutMs % 1000) * 1000L);
            n.libc().setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, v, 16);
            Pointer addr = Memory.allocateDirect(n.runtime(), 12);
            addr.setMemory(0, 12, (byte) 0);
            addr.putShort(0, (short) AF_NETLINK);
            addr.putInt(4, 0); // nl_pid: the kernel assigns one
            addr.putInt(8, CN_IDX_PROC);
            if (n.libc().bind(fd, addr, 12) != 0) {
                throw failure("bind(NETLINK_CONNECTOR, CN_IDX_PROC)", n.runtime().getLastError());
            }
            s.control(PROC_CN_MCAST_LISTEN);
            return s;
        } catch (RuntimeException e) {
            s.close();
            throw e;
        }
    }

    private static EventsUnavailableException failure(String call, int errno) {
        String why = switch (errno) {
            case 1, 13 -> " (not permitted: the process connector needs CAP_NET_ADMIN in the initial user and "
                    + "network namespaces, as root on the host has)";
            case 93, 97 -> " (this kernel has no process connector: CONFIG_PROC_EVENTS)";
            default -> "";
        };
        return new EventsUnavailableException(call + " failed with errno " + errno + why);
    }

    /** Sends {@code PROC_CN_MCAST_LISTEN} or {@code PROC_CN_MCAST_IGNORE}. */
    private void control(int op) {
        int len = 16 + 20 + 4;
        Pointer m = Memory.allocateDirect(n.runtime(), len);
        m.setMemory(0, len, (byte) 0);
        m.putInt(0, len);               // nlmsghdr.nlmsg_len
        m.putShort(4, (short) NLMSG_DONE); // nlmsg_type
        m.putInt(12, 0);                // nlmsg_pid
        m.putInt(16, CN_IDX_PROC);      // cn_msg.id.idx
        m.putInt(20, CN_VAL_PROC);      // cn_msg.id.val
        m.putShort(32, (short) 4);      // cn_msg.len
        m.putInt(36, op);
        if (n.libc().send(fd, m, len, 0) != len) {
            throw failure("send(PROC_CN_MCAST_LISTEN)", n.runtime().getLastError());
        }
    }

    /**
     * Receives one datagram into {@code into}.
     *
     * @return its length; {@link #TIMEOUT} when nothing came in time; {@link #OVERRUN} when the kernel dropped
     *         messages
     */
    public int receive(byte[] into) {
        long r = n.libc().recv(fd, buf, Math.min(into.length, buf.size()), 0);
        if (r < 0) {
            int errno = n.runtime().getLastError();
            if (errno == EAGAIN || errno == EINTR) {
                return TIMEOUT;
            }
            if (errno == ENOBUFS) {
                return OVERRUN;
            }
            if (closed) {
                return TIMEOUT;
            }
            throw new EventsUnavailableException("recv on the process connector failed with errno " + errno);
        }
        buf.get(0, into, 0, (int) r);
        return (int) r;
    }

    @Override
    public void close() {
        if (!closed) {
            closed = true;
            n.posix().close(fd);
        }
    }
}
