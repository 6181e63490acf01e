package io.github.procscope.kubernetes;

import io.grpc.InsecureChannelCredentials;
import io.grpc.ManagedChannel;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import io.grpc.netty.shaded.io.netty.channel.ChannelOption;
import io.grpc.netty.shaded.io.netty.channel.EventLoopGroup;
import io.grpc.netty.shaded.io.netty.channel.MultiThreadIoEventLoopGroup;
import io.grpc.netty.shaded.io.netty.channel.epoll.Epoll;
import io.grpc.netty.shaded.io.netty.channel.epoll.EpollDomainSocketChannel;
import io.grpc.netty.shaded.io.netty.channel.epoll.EpollIoHandler;
import io.grpc.netty.shaded.io.netty.channel.unix.DomainSocketAddress;

import java.nio.file.Path;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * gRPC channels over unix domain sockets: Netty's epoll transport (shaded into grpc-netty-shaded, with its
 * native library for Linux on x86_64 and aarch64), one event-loop thread for every channel of a resolver,
 * made when the first channel is. Nothing of Netty is loaded before {@link #open}.
 *
 * <p>The epoll library is loaded with {@code System.load}, a restricted method from JDK 22 on: the JVM warns
 * unless native access is granted ({@code --enable-native-access=ALL-UNNAMED}, the flag procscope asks for
 * anyway). The Netty inside grpc-netty-shaded (4.2) keeps off {@code sun.misc.Unsafe} on JDK 24 and later by
 * itself, so it prints no JEP 498 warning.
 */
final class UnixTransport implements AutoCloseable {
    /** Authority sent with each call: a unix socket has no host name. */
    private static final String AUTHORITY = "localhost";

    private EventLoopGroup group;
    private boolean closed;

    /** The platform has no unix-socket transport Netty can use. */
    static final class UnavailableException extends RuntimeException {
        private static final long serialVersionUID = 1L;

        UnavailableException(String message, Throwable cause) {
            super(message, cause);
        }
    }

    /**
     * @param socket          a path checked by {@link SocketCheck}
     * @param maxMessageBytes the largest answer accepted
     * @return a channel to it; it connects on its first call
     * @throws UnavailableException if Netty's epoll transport cannot be loaded here
     */
    synchronized ManagedChannel open(Path socket, int maxMessageBytes) {
        if (closed) {
            throw new IllegalStateException("closed");
        }
        if (group == null) {
            if (!Epoll.isAvailable()) {
                Throwable cause = Epoll.unavailabilityCause();
                throw new UnavailableException("no unix-socket transport here: Netty's epoll is unavailable ("
                        + cause + ")", cause);
            }
            group = new MultiThreadIoEventLoopGroup(1, daemonThreads(), EpollIoHandler.newFactory());
        }
        return NettyChannelBuilder.forAddress(new DomainSocketAddress(socket.toString()),
                        InsecureChannelCredentials.create())
                .eventLoopGroup(group)
                .channelType(EpollDomainSocketChannel.class, DomainSocketAddress.class)
                // gRPC asks for TCP keep-alive, which a unix socket does not have: Netty would log a warning
                // for each connection. No value removes the option.
                .withOption(ChannelOption.SO_KEEPALIVE, null)
                .overrideAuthority(AUTHORITY)
                .directExecutor()
                .maxInboundMessageSize(maxMessageBytes)
                .userAgent("procscope")
                .build();
    }

    /** Stops the event loop; the channels must have been shut down. */
    @Override
    public synchronized void close() {
        closed = true;
        if (group != null) {
            group.shutdownGracefully(0, 1, TimeUnit.SECONDS);
            group = null;
        }
    }

    private static ThreadFactory daemonThreads() {
        AtomicInteger n = new AtomicInteger();
        return r -> {
            Thread t = new Thread(r, "procscope-kubernetes-io-" + n.incrementAndGet());
            t.setDaemon(true);
            return t;
        };
    }
}
