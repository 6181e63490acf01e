package io.github.procscope.kubernetes;

import io.grpc.BindableService;
import io.grpc.InsecureServerCredentials;
import io.grpc.Server;
import io.grpc.netty.shaded.io.grpc.netty.NettyServerBuilder;
import io.grpc.netty.shaded.io.netty.channel.ChannelOption;
import io.grpc.netty.shaded.io.netty.channel.EventLoopGroup;
import io.grpc.netty.shaded.io.netty.channel.MultiThreadIoEventLoopGroup;
import io.grpc.netty.shaded.io.netty.channel.epoll.EpollIoHandler;
import io.grpc.netty.shaded.io.netty.channel.epoll.EpollServerDomainSocketChannel;
import io.grpc.netty.shaded.io.netty.channel.unix.DomainSocketAddress;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

/** A gRPC server on a unix socket, serving the fakes the tests give it: what a runtime or kubelet would be. */
public final class UnixServer implements AutoCloseable {
    private final EventLoopGroup group;
    private final Server server;

    private UnixServer(EventLoopGroup group, Server server) {
        this.group = group;
        this.server = server;
    }

    /**
     * @param socket   where to listen (a new socket file)
     * @param services what to serve
     * @return the started server
     */
    public static UnixServer start(Path socket, BindableService... services) {
        EventLoopGroup group = new MultiThreadIoEventLoopGroup(1, EpollIoHandler.newFactory());
        NettyServerBuilder b = NettyServerBuilder.forAddress(new DomainSocketAddress(socket.toString()),
                        InsecureServerCredentials.create())
                .channelType(EpollServerDomainSocketChannel.class)
                .bossEventLoopGroup(group)
                .workerEventLoopGroup(group)
                .withChildOption(ChannelOption.SO_KEEPALIVE, null)
                .directExecutor();
        for (BindableService s : services) {
            b.addService(s);
        }
        try {
            return new UnixServer(group, b.build().start());
        } catch (IOException e) {
            group.shutdownGracefully(0, 0, TimeUnit.SECONDS);
            throw new UncheckedIOException(e);
        }
    }

    /** Stops serving: calls in flight end, the socket file is removed. */
    @Override
    public void close() {
        server.shutdownNow();
        try {
            server.awaitTermination(30, TimeUnit.SECONDS);
            group.shutdownGracefully(0, 0, TimeUnit.SECONDS).await(30, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
