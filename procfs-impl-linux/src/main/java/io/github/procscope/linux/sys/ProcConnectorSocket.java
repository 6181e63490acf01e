package io.github.procscope.linux.sys;

import io.github.procscope.api.events.EventsUnavailableException;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * A netlink socket subscribed to the kernel's process connector ({@code NETLINK_CONNECTOR}, group
 * {@code CN_IDX_PROC}; {@code linux/cn_proc.h}, {@code linux/connector.h}). Small methods over the native wall's
 * socket calls (either back end: on JDK 22+ the FFM one, so nothing loads jnr-ffi): open and subscribe, receive
 * one datagram, close.
 */
public final class ProcConnectorSocket implements AutoCloseable {
    static final int AF_NETLINK = 16;
    static final int SOCK_DGRAM = 2;
    static final int SOCK_CLOEXEC = 0x80000;
    static final int NETLINK_CONNECTOR = 11;
    public static final int CN_IDX_PROC = 1;
    public static final int CN_VAL_PROC = 1;
    static final int PROC_CN_MCAST_LISTEN = 1;
    static final int PROC_CN_MCAST_IGNORE = 2;
    static final int NLMSG_DONE = 3;
    static final int SOL_SOCKET = 1;
    static final int SO_RCVBUF = 8;
    static final int SO_RCVTIMEO = 20;
    static final int SO_RCVBUFFORCE = 33;
    static final int EAGAIN = 11;
    static final int EINTR = 4;
    static final int ENOBUFS = 105;
    /** Result of {@link #receive}: nothing arrived within the timeout. */
    static final int TIMEOUT = 0;
    /** Result of {@link #receive}: the kernel dropped messages (the socket buffer overran). */
    public static final int OVERRUN = -1;

    private final NativeWall n;
    private final int fd;
    private volatile boolean closed;

    private ProcConnectorSocket(NativeWall n, int fd) {
        this.n = n;
        this.fd = fd;
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
        NativeWall n;
        try {
            n = NativeWalls.get("socket(AF_NETLINK)");
        } catch (RuntimeException e) {
            throw new EventsUnavailableException("the process connector needs native calls: " + e.getMessage());
        }
        int fd = n.socket(AF_NETLINK, SOCK_DGRAM | SOCK_CLOEXEC, NETLINK_CONNECTOR);
        if (fd < 0) {
            throw failure("socket(AF_NETLINK, NETLINK_CONNECTOR)", -fd);
        }
        ProcConnectorSocket s = new ProcConnectorSocket(n, fd);
        try {
            ByteBuffer v = ByteBuffer.allocate(16).order(ByteOrder.nativeOrder());
            v.putInt(0, receiveBufferBytes);
            if (n.setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, v.array(), 4) != 0) {
                n.setsockopt(fd, SOL_SOCKET, SO_RCVBUF, v.array(), 4); // unprivileged: capped at rmem_max
            }
            v.putLong(0, timeoutMs / 1000);
            v.putLong(8, (timeoutMs % 1000) * 1000L);
            n.setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, v.array(), 16);
            ByteBuffer addr = ByteBuffer.allocate(12).order(ByteOrder.nativeOrder());
            addr.putShort(0, (short) AF_NETLINK);
            addr.putInt(4, 0); // nl_pid: the kernel assigns one
            addr.putInt(8, CN_IDX_PROC);
            int bound = n.bind(fd, addr.array(), 12);
            if (bound != 0) {
                throw failure("bind(NETLINK_CONNECTOR, CN_IDX_PROC)", -bound);
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
        ByteBuffer m = ByteBuffer.allocate(len).order(ByteOrder.nativeOrder());
        m.putInt(0, len);                  // nlmsghdr.nlmsg_len
        m.putShort(4, (short) NLMSG_DONE); // nlmsg_type
        m.putInt(12, 0);                   // nlmsg_pid
        m.putInt(16, CN_IDX_PROC);         // cn_msg.id.idx
        m.putInt(20, CN_VAL_PROC);         // cn_msg.id.val
        m.putShort(32, (short) 4);         // cn_msg.len
        m.putInt(36, op);
        long sent = n.send(fd, m.array(), 0, len, 0);
        if (sent != len) {
            throw failure("send(PROC_CN_MCAST_LISTEN)", sent < 0 ? (int) -sent : 0);
        }
    }

    /**
     * Receives one datagram into {@code into}.
     *
     * @return its length; {@link #TIMEOUT} when nothing came in time; {@link #OVERRUN} when the kernel dropped
     *         messages
     */
    public int receive(byte[] into) {
        long r = n.recv(fd, into, 0, into.length, 0);
        if (r < 0) {
            int errno = (int) -r;
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
        return (int) r;
    }

    @Override
    public void close() {
        if (!closed) {
            closed = true;
            n.close(fd);
        }
    }
}
