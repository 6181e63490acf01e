package io.github.procscope.cli.lab;

import jnr.ffi.LibraryLoader;
import jnr.ffi.Pointer;
import jnr.ffi.Runtime;
import jnr.ffi.types.off_t;
import jnr.ffi.types.size_t;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;

/**
 * Lab helper for step 5: reserves 300 MiB with an anonymous private mapping ({@code mmap}, untouched:
 * VSZ grows, RSS does not), then on the command {@code touch} writes one byte in each page of the first
 * 80 MiB (RSS grows by 80 MiB). Commands come on stdin; each is answered with one line on stdout.
 */
public final class LabMemory {
    static final long RESERVE = 300L << 20;
    static final long TOUCH = 80L << 20;
    private static final int PROT_READ = 0x1;
    private static final int PROT_WRITE = 0x2;
    private static final int MAP_PRIVATE = 0x02;
    private static final int MAP_ANONYMOUS = 0x20;
    private static final int MAP_NORESERVE = 0x4000;

    /** The two libc calls the helper needs. */
    public interface LibC {
        /**
         * @return the mapping, or the address -1 ({@code MAP_FAILED})
         */
        Pointer mmap(Pointer addr, @size_t long length, int prot, int flags, int fd, @off_t long offset);

        /** @return the page size */
        long getpagesize();
    }

    private LabMemory() {
    }

    /** @param args unused */
    public static void main(String[] args) throws IOException {
        LibC libc = LibraryLoader.create(LibC.class).load("c");
        Runtime rt = Runtime.getRuntime(libc);
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        System.out.println("pid " + ProcessHandle.current().pid());
        System.out.flush();
        Pointer region = null;
        String cmd;
        while ((cmd = in.readLine()) != null) {
            switch (cmd.strip()) {
                case "reserve": {
                    Pointer p = libc.mmap(null, RESERVE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
                    if (p == null || p.address() == -1L) {
                        System.out.println("error mmap failed: errno " + rt.getLastError());
                    } else {
                        region = p;
                        System.out.println("reserved " + RESERVE);
                    }
                    break;
                }
                case "touch": {
                    if (region == null) {
                        System.out.println("error nothing reserved");
                        break;
                    }
                    long page = libc.getpagesize();
                    for (long off = 0; off < TOUCH; off += page) {
                        region.putByte(off, (byte) 1);
                    }
                    System.out.println("touched " + TOUCH);
                    break;
                }
                default:
                    System.out.println("error unknown command " + cmd);
            }
            System.out.flush();
        }
    }
}
