package io.github.procscope.metrics;

import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;

/**
 * Parses {@code HOST:PORT} listen addresses ({@code 127.0.0.1:9464}, {@code [::1]:9464}, {@code :9464}) and writes
 * them back the same way.
 */
public final class ListenAddress {
    /** The default: the loopback interface, port 9464. */
    public static final String DEFAULT = "127.0.0.1:9464";

    private ListenAddress() {
    }

    /**
     * @param spec {@code HOST:PORT}, {@code [IPv6]:PORT}, or {@code :PORT} for every IPv4 interface (as
     *             {@code 0.0.0.0:PORT}; {@code [::]:PORT} is every interface, IPv6 and IPv4)
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

    /**
     * @param address a resolved socket address
     * @return it as {@code HOST:PORT}: {@code 127.0.0.1:9464}, or an IPv6 address in brackets and in its short form
     *         (RFC 5952: {@code [::]:9464}, {@code [::1]:9464}, {@code [fe80::1%eth0]:9464})
     */
    public static String format(InetSocketAddress address) {
        InetAddress a = address.getAddress();
        if (a == null) {
            return address.getHostString() + ":" + address.getPort();
        }
        if (!(a instanceof Inet6Address v6)) {
            return a.getHostAddress() + ":" + address.getPort();
        }
        byte[] b = v6.getAddress();
        int[] groups = new int[8];
        for (int i = 0; i < 8; i++) {
            groups[i] = (b[2 * i] & 0xff) << 8 | b[2 * i + 1] & 0xff;
        }
        // The longest run of two or more zero groups (the first of equal runs) becomes "::".
        int bestStart = -1;
        int bestLength = 1;
        for (int i = 0; i < 8; ) {
            if (groups[i] != 0) {
                i++;
                continue;
            }
            int j = i;
            while (j < 8 && groups[j] == 0) {
                j++;
            }
            if (j - i > bestLength) {
                bestStart = i;
                bestLength = j - i;
            }
            i = j;
        }
        StringBuilder text = new StringBuilder("[");
        for (int i = 0; i < 8; i++) {
            if (i == bestStart) {
                text.append("::");
                i += bestLength - 1;
                continue;
            }
            if (text.length() > 1 && text.charAt(text.length() - 1) != ':') {
                text.append(':');
            }
            text.append(Integer.toHexString(groups[i]));
        }
        if (v6.getScopedInterface() != null) {
            text.append('%').append(v6.getScopedInterface().getName());
        } else if (v6.getScopeId() != 0) {
            text.append('%').append(v6.getScopeId());
        }
        return text.append("]:").append(address.getPort()).toString();
    }
}
