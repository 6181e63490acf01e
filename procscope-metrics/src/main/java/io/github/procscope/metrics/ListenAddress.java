package io.github.procscope.metrics;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;

/** Parses {@code HOST:PORT} listen addresses ({@code 127.0.0.1:9464}, {@code [::1]:9464}, {@code :9464}). */
public final class ListenAddress {
    /** The default: the loopback interface, port 9464. */
    public static final String DEFAULT = "127.0.0.1:9464";

    private ListenAddress() {
    }

    /**
     * @param spec {@code HOST:PORT}, {@code [IPv6]:PORT}, or {@code :PORT} for every interface
     * @return the address, resolved
     * @throws IllegalArgumentException naming what is wrong: no port, a port out of 0 to 65535, a host that does
     *                                  not resolve
     */
    public static InetSocketAddress parse(String spec) {
        int colon = spec.lastIndexOf(':');
        if (colon < 0) {
            throw new IllegalArgumentException("a listen address is HOST:PORT, for example " + DEFAULT + ", not '"
                    + spec + "'");
        }
        String host = spec.substring(0, colon);
        String portText = spec.substring(colon + 1);
        int port;
        try {
            port = Integer.parseInt(portText);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("the port of '" + spec + "' is not a number: '" + portText + "'");
        }
        if (port < 0 || port > 65_535) {
            throw new IllegalArgumentException("the port of '" + spec + "' must be 0 to 65535: " + port);
        }
        if (host.startsWith("[") && host.endsWith("]")) {
            host = host.substring(1, host.length() - 1);
        }
        if (host.isEmpty()) {
            return new InetSocketAddress(port);
        }
        try {
            return new InetSocketAddress(InetAddress.getByName(host), port);
        } catch (UnknownHostException e) {
            throw new IllegalArgumentException("the host of '" + spec + "' does not resolve: " + host);
        }
    }
}
