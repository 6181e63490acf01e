package io.github.procscope.benchmarks;

import com.sun.jna.Library;
import com.sun.jna.Native;
import com.sun.jna.Pointer;

import java.nio.file.Files;
import java.nio.file.Path;

/**
 * The native parts {@code benchmarks/run.sh} compiles with gcc, and where they lie: the directory named by
 * the system property {@value #PROPERTY}, by default {@code benchmarks/target/native} under the working
 * directory (or {@code target/native} when run from the module).
 */
final class NativeParts {
    /** The system property naming the directory of the compiled native parts. */
    static final String PROPERTY = "procscope.bench.native";

    private NativeParts() {
    }

    /** The C references of {@code src/main/c/floor.c}. */
    interface Floor extends Library {
        /** @return the size in bytes of one process record */
        long pf_record_size();

        /**
         * @param out        room for {@code capacity} records
         * @param capacity   how many records fit
         * @param withStatm  non-zero to read {@code /proc/PID/statm} too
         * @return how many processes were read, or -1 if {@code /proc} cannot be opened
         */
        int pf_snapshot(Pointer out, int capacity, int withStatm);

        /** @return the size in bytes of one record of {@link #pf_scrape} */
        long pf_scraped_size();

        /** {@link #pf_scrape}: count open descriptors by the size of {@code /proc/PID/fd} (Linux 6.2+). */
        int FD_BY_SIZE = 1;
        /** {@link #pf_scrape}: read {@code /proc/PID/status} too (context switches, swap). */
        int STATUS = 2;
        /** {@link #pf_scrape}: read {@code /proc/PID/limits} too (the soft limit on open files). */
        int LIMITS = 4;
        /** {@link #pf_scrape}: read each thread's {@code status} of a process of several threads. */
        int THREADS = 8;
        /** {@link #pf_scrape}: every file a default scrape of today reads, descriptors counted by size. */
        int SAME_FILES = FD_BY_SIZE | STATUS | LIMITS | THREADS;

        /**
         * @param out      room for {@code capacity} records
         * @param capacity how many records fit
         * @param flags    {@link #FD_BY_SIZE} to count open descriptors by the size of {@code /proc/PID/fd}
         *                 (Linux 6.2+), listing the directory only where it is 0, else every one is listed;
         *                 {@link #STATUS}, {@link #LIMITS}, {@link #THREADS} for the files of process-exporter's
         *                 other families
         * @return how many processes were read, or -1 if {@code /proc} cannot be opened
         */
        int pf_scrape(Pointer out, int capacity, int flags);

        /** @return the size in bytes of one GPU sample */
        long pf_sample_size();

        /**
         * @param path the NVML library file
         * @return 0, or why not (see the C source)
         */
        int pf_nvml_open(String path);

        /**
         * @param out room for one sample
         * @return how many NVML calls failed
         */
        int pf_nvml_sample(Pointer out);

        /** @return the return code of {@code nvmlShutdown} */
        int pf_nvml_close();
    }

    /** The one control function of the NVML test double the benchmarks need. */
    interface NvmlDoubleControl extends Library {
        /** @return the init count it found; resets the double to two default GPUs */
        int ndReset();
    }

    /** @return the directory of the native parts */
    static Path directory() {
        String dir = System.getProperty(PROPERTY, "").strip();
        if (!dir.isEmpty()) {
            return Path.of(dir).toAbsolutePath();
        }
        Path fromRoot = Path.of("benchmarks", "target", "native");
        return (Files.isDirectory(fromRoot) ? fromRoot : Path.of("target", "native")).toAbsolutePath();
    }

    /**
     * @param name a file name
     * @return the file, which exists
     * @throws IllegalStateException naming what to do when it is absent
     */
    static Path require(String name) {
        Path file = directory().resolve(name);
        if (!Files.isRegularFile(file)) {
            throw new IllegalStateException(file + " is missing: the native parts of the benchmarks are compiled"
                    + " by benchmarks/run.sh with gcc (or point the system property " + PROPERTY
                    + " at the directory that holds them)");
        }
        return file;
    }

    /** @return the C references, loaded */
    static Floor floor() {
        return Native.load(require("libprocfloor.so").toString(), Floor.class);
    }

    /** @return the NVML test double's library file */
    static Path nvmlDouble() {
        return require("libnvidia-ml.so.1");
    }

    /** @return the idle-process helper */
    static Path idle() {
        return require("idle");
    }
}
