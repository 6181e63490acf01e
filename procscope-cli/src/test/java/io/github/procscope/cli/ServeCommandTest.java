package io.github.procscope.cli;

import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

class ServeCommandTest {

    @Test
    void servesTheFixtureMachineUntilInterrupted() throws Exception {
        MachineFixture m = MachineFixture.create();
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int[] status = {-1};
        Thread serve = new Thread(() -> status[0] = ProcscopeCli.run(new PrintStream(out, true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8), "--procfs-root", m.proc().toString(),
                "--sysfs-root", m.sys().toString(), "serve", "--listen", "127.0.0.1:0", "--no-gpu",
                "--group-by", "job"));
        serve.start();
        try {
            Pattern listening = Pattern.compile("listening on http://127\\.0\\.0\\.1:(\\d+)/metrics");
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            Matcher match = listening.matcher(out.toString(StandardCharsets.UTF_8));
            while (!match.find()) {
                assertTrue(System.nanoTime() < deadline && serve.isAlive(), "serve did not start: " + out + err);
                Thread.sleep(20);
                match = listening.matcher(out.toString(StandardCharsets.UTF_8));
            }
            int port = Integer.parseInt(match.group(1));
            String body = HttpClient.newHttpClient().send(HttpRequest.newBuilder(
                    URI.create("http://127.0.0.1:" + port + "/metrics")).build(), HttpResponse.BodyHandlers.ofString()).body();
            assertTrue(body.contains("namedprocess_namegroup_num_procs{groupname=\"python3:4100\"} 4.0"), body);
            assertTrue(body.contains("procscope_zombies{parent_comm=\"python3\",parent_pid=\"4100\"} 1.0"), body);
            assertTrue(!body.contains("DCGM_"), body);
        } finally {
            serve.interrupt();
            serve.join(30_000);
        }
        assertEquals(ProcscopeCli.OK, status[0], err.toString(StandardCharsets.UTF_8));
    }

    @Test
    void badListenAddressesAndRulesAreUsageErrors() {
        CliRun r = CliRun.of("serve", "--listen", "9464");
        assertEquals(ProcscopeCli.USAGE, r.status());
        assertTrue(r.err().startsWith("procscope serve: a listen address is HOST:PORT"), r.err());
        r = CliRun.of("serve", "--listen", "127.0.0.1:70000");
        assertEquals(ProcscopeCli.USAGE, r.status());
        assertTrue(r.err().contains("0 to 65535"), r.err());
        r = CliRun.of("serve", "--group-by", "comm", "--group-by", "x=y");
        assertEquals(ProcscopeCli.USAGE, r.status());
        assertTrue(r.err().contains("stands alone"), r.err());
        r = CliRun.of("serve", "--group-by", "pod", "--group-by", "x=y");
        assertEquals(ProcscopeCli.USAGE, r.status());
        assertTrue(r.err().contains("--group-by pod stands alone"), r.err());
        r = CliRun.of("serve", "--group-by", "slurm", "--group-by", "container");
        assertEquals(ProcscopeCli.USAGE, r.status());
        assertTrue(r.err().contains("stands alone"), r.err());
        r = CliRun.of("serve", "--group-by", "pods");
        assertEquals(ProcscopeCli.USAGE, r.status());
        assertTrue(r.err().contains("NAME=REGEX"), r.err());
        r = CliRun.of("serve", "--group-by", "x=(");
        assertEquals(ProcscopeCli.USAGE, r.status());
        assertTrue(r.err().contains("bad regular expression"), r.err());
        r = CliRun.of("serve", "--series-cap", "0", "--no-gpu", "--no-doctor");
        assertEquals(ProcscopeCli.USAGE, r.status());
        assertTrue(r.err().contains("series cap"), r.err());
        assertEquals(1, r.err().lines().count(), r.err());
    }

    @Test
    void ownerGroupingsReadTheCgroupFacet() {
        for (String rule : java.util.List.of("container", "pod", "slurm")) {
            assertEquals(java.util.Set.of(io.github.procscope.api.process.Facet.CGROUP),
                    ServeCommand.grouper(java.util.List.of(rule), java.util.Set.of()).facets(), rule);
        }
        assertEquals(java.util.Set.of(), ServeCommand.grouper(java.util.List.of("comm"), java.util.Set.of()).facets());
    }

    @Test
    void aPortInUseIsOneLineNamingIt() throws Exception {
        try (ServerSocket taken = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            CliRun r = CliRun.of("serve", "--listen", "127.0.0.1:" + taken.getLocalPort(), "--no-gpu", "--no-doctor");
            assertTrue(r.status() != ProcscopeCli.OK);
            assertTrue(r.err().startsWith("procscope serve: cannot listen on 127.0.0.1:" + taken.getLocalPort()), r.err());
            assertEquals(1, r.err().lines().count(), r.err());
        }
    }

    /** Runs {@code serve} with these arguments until it says where it listens; then stops it. */
    private static CliRun serveUntilListening(String... args) throws Exception {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        String[] all = new String[args.length + 5];
        all[0] = "--procfs-root";
        all[1] = MachineFixture.create().proc().toString();
        all[2] = "serve";
        all[3] = "--no-gpu";
        all[4] = "--no-doctor";
        System.arraycopy(args, 0, all, 5, args.length);
        int[] status = {-1};
        Thread serve = new Thread(() -> status[0] = ProcscopeCli.run(new PrintStream(out, true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8), all));
        serve.start();
        try {
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            while (!out.toString(StandardCharsets.UTF_8).contains("listening on")) {
                assertTrue(System.nanoTime() < deadline && serve.isAlive(), "serve did not start: " + out + err);
                Thread.sleep(20);
            }
        } finally {
            serve.interrupt();
            serve.join(30_000);
        }
        return new CliRun(status[0], out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
    }

    @Test
    void listeningBeyondTheLoopbackInterfaceIsWarnedOfNamingTheAddressBound() throws Exception {
        CliRun v4 = serveUntilListening("--listen", "0.0.0.0:0");
        Matcher m = Pattern.compile("listening on http://0\\.0\\.0\\.0:(\\d+)/metrics").matcher(v4.out());
        assertTrue(m.find(), v4.out());
        assertEquals("procscope serve: warning: listening on 0.0.0.0:" + m.group(1) + ", every interface: whoever can"
                + " reach it can read this machine's process names, command groups and GPU use; --listen"
                + " 127.0.0.1:9464 keeps it local\n", v4.err());
        CliRun v6 = serveUntilListening("--listen", "[::]:0");
        m = Pattern.compile("listening on http://\\[::]:(\\d+)/metrics").matcher(v6.out());
        assertTrue(m.find(), v6.out());
        assertTrue(v6.err().startsWith("procscope serve: warning: listening on [::]:" + m.group(1)
                + ", every interface"), v6.err());
        assertEquals(1, v6.err().lines().count(), v6.err());
        // A specific address that is not loopback: this machine's own, where it has one.
        InetAddress own = null;
        for (var nic : java.util.Collections.list(java.net.NetworkInterface.getNetworkInterfaces())) {
            for (InetAddress a : java.util.Collections.list(nic.getInetAddresses())) {
                if (a instanceof java.net.Inet4Address && !a.isLoopbackAddress() && nic.isUp()) {
                    own = a;
                }
            }
        }
        if (own != null) {
            CliRun specific = serveUntilListening("--listen", own.getHostAddress() + ":0");
            assertTrue(specific.err().startsWith("procscope serve: warning: listening on " + own.getHostAddress()
                    + ":"), specific.err());
            assertTrue(specific.err().contains(", beyond the loopback interface: "), specific.err());
        }
        // Loopback, IPv4 or IPv6: no warning, the address as bound.
        CliRun lo6 = serveUntilListening("--listen", "[::1]:0");
        assertTrue(Pattern.compile("listening on http://\\[::1]:\\d+/metrics").matcher(lo6.out()).find(), lo6.out());
        assertEquals("", lo6.err());
        CliRun lo4 = serveUntilListening("--listen", "localhost:0");
        assertTrue(Pattern.compile("listening on http://127\\.0\\.0\\.1:\\d+/metrics").matcher(lo4.out()).find(),
                lo4.out());
        assertEquals("", lo4.err());
        assertEquals(ProcscopeCli.OK, lo4.status());
    }

    @Test
    void groupRetentionIsADurationReadAsStrictlyAsTheOthers() {
        for (String bad : java.util.List.of("5 minutes", "-1s", "1y", "", "9999999999h")) {
            CliRun r = CliRun.of("serve", "--group-retention", bad, "--no-gpu", "--no-doctor");
            assertEquals(ProcscopeCli.USAGE, r.status(), bad);
            assertTrue(r.err().contains("--group-retention"), bad + ": " + r.err());
            assertEquals(1, r.err().lines().count(), r.err());
        }
        assertTrue(CliRun.of("serve", "--help").out().contains("--group-retention=DURATION"));
    }
}
