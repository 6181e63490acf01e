/*
 * libprocfloor: the C references the benchmarks measure procscope against, called through JNA so that
 * the same JMH harness times them.
 *
 *   pf_snapshot   the floor of a full-system snapshot: for each numeric entry of /proc, read and parse
 *                 /proc/PID/stat (comm between the first '(' and the last ')', then every numeric field
 *                 into a struct) and stat() /proc/PID for the owner. With with_statm set, it also reads
 *                 and parses /proc/PID/statm ("equal work": procscope reads statm because field 24 of
 *                 stat, RSS, is approximate since Linux 6.2).
 *   pf_scrape     the floor of a `procscope serve` scrape by command name (its default): for each process what
 *                 pf_snapshot reads with statm, plus /proc/PID/io (every counter parsed) and the number of
 *                 open descriptors. With fd_by_size set, that number is st_size of stat("/proc/PID/fd"),
 *                 which Linux 6.2+ sets to the count of open descriptors, and the directory is listed only
 *                 where the size is 0 (an older kernel, or no descriptor); without, the directory is listed
 *                 and its numeric entries counted. A file the caller may not read (io, fd of another user's
 *                 process) leaves its facts absent, as in procscope.
 *                 The other bits of flags (PF_STATUS, PF_LIMITS, PF_THREADS) add the files a scrape reads today
 *                 beyond those (process-exporter's families): /proc/PID/status (context switches, VmSwap),
 *                 /proc/PID/limits (the soft limit on open files, for worst_fd_ratio) and, for a process of more
 *                 than one thread, each /proc/PID/task/TID/status (its threads' context switches, summed).
 *   pf_nvml_*     the NVML functions one full device sample calls, called directly from C on a library
 *                 loaded with dlopen (the test double, or a driver's libnvidia-ml.so.1).
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>

#define PF_STAT_FIELDS 52

typedef struct {
    long long pid;
    long long fields[PF_STAT_FIELDS]; /* fields[i] is stat field i + 1; comm and state are kept apart */
    long long statm[7];
    unsigned int uid;
    char state;
    char comm[64];
} pf_process;

long pf_record_size(void) {
    return (long) sizeof(pf_process);
}

/* Reads a whole small file relative to dirfd; returns its length, or -1. */
static ssize_t read_at(int dirfd, const char *path, char *buf, size_t cap) {
    int fd = openat(dirfd, path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        return -1;
    }
    size_t len = 0;
    for (;;) {
        ssize_t n = read(fd, buf + len, cap - 1 - len);
        if (n < 0) {
            if (errno == EINTR) {
                continue;
            }
            close(fd);
            return -1;
        }
        if (n == 0) {
            break;
        }
        len += (size_t) n;
        if (len == cap - 1) {
            break;
        }
    }
    close(fd);
    buf[len] = '\0';
    return (ssize_t) len;
}

/* Parses a signed decimal at *p, advancing past it and one following separator. */
static long long number(const char **p, const char *end) {
    const char *s = *p;
    int negative = 0;
    if (s < end && *s == '-') {
        negative = 1;
        s++;
    }
    unsigned long long v = 0;
    while (s < end && *s >= '0' && *s <= '9') {
        v = v * 10 + (unsigned) (*s - '0');
        s++;
    }
    if (s < end) {
        s++;
    }
    *p = s;
    return negative ? -(long long) v : (long long) v;
}

static int parse_stat(const char *buf, size_t len, pf_process *out) {
    const char *end = buf + len;
    const char *open = memchr(buf, '(', len);
    const char *close = memrchr(buf, ')', len);
    if (open == NULL || close == NULL || close < open || close + 2 >= end) {
        return -1;
    }
    const char *p = buf;
    out->pid = number(&p, open);
    size_t n = (size_t) (close - open - 1);
    if (n >= sizeof out->comm) {
        n = sizeof out->comm - 1;
    }
    memcpy(out->comm, open + 1, n);
    out->comm[n] = '\0';
    p = close + 2;
    out->state = *p;
    p += 2;
    out->fields[0] = out->pid;
    out->fields[1] = 0;
    out->fields[2] = 0;
    for (int i = 3; i < PF_STAT_FIELDS; i++) {
        out->fields[i] = p < end ? number(&p, end) : 0;
    }
    return 0;
}

static void parse_statm(const char *buf, size_t len, pf_process *out) {
    const char *p = buf;
    const char *end = buf + len;
    for (int i = 0; i < 7; i++) {
        out->statm[i] = p < end ? number(&p, end) : 0;
    }
}

/*
 * Reads one process's stat, the owner of its directory (fstatat with owner_flags) and, with with_statm, its
 * statm into p. path and buf are the caller's scratch space. Returns 0, or -1 if it vanished meanwhile.
 */
static int read_process(int dfd, const char *pid, char *path, char *buf, size_t cap, pf_process *p,
        int with_statm, int owner_flags) {
    size_t name = strlen(pid);
    memcpy(path, pid, name);
    memcpy(path + name, "/stat", 6);
    ssize_t len = read_at(dfd, path, buf, cap);
    if (len <= 0 || parse_stat(buf, (size_t) len, p) != 0) {
        return -1;
    }
    struct stat st;
    if (fstatat(dfd, pid, &st, owner_flags) != 0) {
        return -1;
    }
    p->uid = st.st_uid;
    if (with_statm) {
        memcpy(path + name, "/statm", 7);
        len = read_at(dfd, path, buf, cap);
        if (len <= 0) {
            return -1;
        }
        parse_statm(buf, (size_t) len, p);
    }
    return 0;
}

/*
 * Reads every process into out (at most capacity of them). Returns how many were read, or -1 if /proc
 * cannot be opened. Processes that vanish while being read are skipped.
 */
int pf_snapshot(pf_process *out, int capacity, int with_statm) {
    DIR *dir = opendir("/proc");
    if (dir == NULL) {
        return -1;
    }
    int dfd = dirfd(dir);
    int count = 0;
    char path[300];
    char buf[4096];
    struct dirent *e;
    while (count < capacity && (e = readdir(dir)) != NULL) {
        if (e->d_name[0] < '1' || e->d_name[0] > '9') {
            continue;
        }
        if (read_process(dfd, e->d_name, path, buf, sizeof buf, &out[count], with_statm, 0) == 0) {
            count++;
        }
    }
    closedir(dir);
    return count;
}

/* ---------------- the scrape's reads ---------------- */

typedef struct {
    pf_process base;
    long long io[7];  /* rchar, wchar, syscr, syscw, read_bytes, write_bytes, cancelled_write_bytes */
    int has_io;
    int fds;          /* -1: cannot be listed */
    long long voluntary, nonvoluntary, swap_kb; /* status; summed over the threads with PF_THREADS */
    long long nofile; /* the soft limit on open files; -1 unlimited or unread */
} pf_scraped;

#define PF_FD_BY_SIZE 1
#define PF_STATUS 2
#define PF_LIMITS 4
#define PF_THREADS 8

/* The value after "KEY:" on a line of a status file, or -1. */
static long long status_value(const char *buf, size_t len, const char *key) {
    size_t k = strlen(key);
    const char *p = buf;
    const char *end = buf + len;
    while (p < end) {
        const char *nl = memchr(p, '\n', (size_t) (end - p));
        const char *line_end = nl != NULL ? nl : end;
        if ((size_t) (line_end - p) > k && memcmp(p, key, k) == 0 && p[k] == ':') {
            const char *v = p + k + 1;
            while (v < line_end && (*v == ' ' || *v == '\t')) {
                v++;
            }
            return number(&v, line_end);
        }
        p = line_end + 1;
    }
    return -1;
}

/* The soft limit of the "Max open files" line of a limits file; -1 if unlimited or absent. */
static long long limits_nofile(const char *buf, size_t len) {
    const char *p = buf;
    const char *end = buf + len;
    while (p < end) {
        const char *nl = memchr(p, '\n', (size_t) (end - p));
        const char *line_end = nl != NULL ? nl : end;
        if (line_end - p > 26 && memcmp(p, "Max open files ", 15) == 0) {
            const char *v = p + 26;
            if (*v < '0' || *v > '9') {
                return -1;
            }
            return number(&v, line_end);
        }
        p = line_end + 1;
    }
    return -1;
}

/* Sums the context switches of every thread of the process at PROCFD/PID (path is scratch space). */
static void thread_switches(int procfd, const char *pid, char *path, char *buf, size_t cap, pf_scraped *p) {
    size_t name = strlen(pid);
    memcpy(path, pid, name);
    memcpy(path + name, "/task", 6);
    int fd = openat(procfd, path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0) {
        return;
    }
    DIR *d = fdopendir(fd);
    if (d == NULL) {
        close(fd);
        return;
    }
    long long voluntary = 0;
    long long nonvoluntary = 0;
    struct dirent *e;
    char task[64];
    while ((e = readdir(d)) != NULL) {
        if (e->d_name[0] < '1' || e->d_name[0] > '9') {
            continue;
        }
        size_t t = strlen(e->d_name);
        if (t + 8 > sizeof task) {
            continue;
        }
        memcpy(task, e->d_name, t);
        memcpy(task + t, "/status", 8); /* the scrape reads each thread's status alone */
        ssize_t len = read_at(dirfd(d), task, buf, cap);
        if (len > 0) {
            voluntary += status_value(buf, (size_t) len, "voluntary_ctxt_switches");
            nonvoluntary += status_value(buf, (size_t) len, "nonvoluntary_ctxt_switches");
        }
    }
    closedir(d);
    p->voluntary = voluntary;
    p->nonvoluntary = nonvoluntary;
}

long pf_scraped_size(void) {
    return (long) sizeof(pf_scraped);
}

/* Parses the seven "name: value" lines of /proc/PID/io. */
static void parse_io(const char *buf, size_t len, pf_scraped *out) {
    const char *p = buf;
    const char *end = buf + len;
    for (int i = 0; i < 7; i++) {
        const char *colon = memchr(p, ':', (size_t) (end - p));
        if (colon == NULL || colon + 2 > end) {
            out->io[i] = 0;
            continue;
        }
        p = colon + 2;
        out->io[i] = number(&p, end);
    }
}

/* Counts the numeric entries of DIRFD/PATH (a /proc/PID/fd); -1 if it cannot be listed. */
static int list_fds(int dirfd, const char *path) {
    int fd = openat(dirfd, path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0) {
        return -1;
    }
    DIR *d = fdopendir(fd);
    if (d == NULL) {
        close(fd);
        return -1;
    }
    int n = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        if (e->d_name[0] >= '0' && e->d_name[0] <= '9') {
            n++;
        }
    }
    closedir(d);
    return n;
}

/*
 * Reads every process as a default scrape does into out (at most capacity of them). Returns how many were
 * read, or -1 if /proc cannot be opened.
 */
int pf_scrape(pf_scraped *out, int capacity, int flags) {
    int fd_by_size = flags & PF_FD_BY_SIZE;
    DIR *dir = opendir("/proc");
    if (dir == NULL) {
        return -1;
    }
    int dfd = dirfd(dir);
    int count = 0;
    char path[300];
    char buf[4096];
    struct dirent *e;
    while (count < capacity && (e = readdir(dir)) != NULL) {
        if (e->d_name[0] < '1' || e->d_name[0] > '9') {
            continue;
        }
        pf_scraped *p = &out[count];
        if (read_process(dfd, e->d_name, path, buf, sizeof buf, &p->base, 1, AT_SYMLINK_NOFOLLOW) != 0) {
            continue;
        }
        size_t name = strlen(e->d_name);
        ssize_t len;
        struct stat st;
        memcpy(path + name, "/io", 4);
        len = read_at(dfd, path, buf, sizeof buf);
        p->has_io = len > 0;
        if (p->has_io) {
            parse_io(buf, (size_t) len, p);
        }
        memcpy(path + name, "/fd", 4);
        p->fds = -1;
        if (fd_by_size && fstatat(dfd, path, &st, AT_SYMLINK_NOFOLLOW) == 0 && st.st_size > 0) {
            p->fds = (int) st.st_size;
        } else {
            p->fds = list_fds(dfd, path);
        }
        p->voluntary = p->nonvoluntary = p->swap_kb = 0;
        p->nofile = -1;
        if (flags & PF_STATUS) {
            memcpy(path + name, "/status", 8);
            len = read_at(dfd, path, buf, sizeof buf);
            if (len > 0) {
                p->voluntary = status_value(buf, (size_t) len, "voluntary_ctxt_switches");
                p->nonvoluntary = status_value(buf, (size_t) len, "nonvoluntary_ctxt_switches");
                p->swap_kb = status_value(buf, (size_t) len, "VmSwap");
            }
        }
        if (flags & PF_LIMITS) {
            memcpy(path + name, "/limits", 8);
            len = read_at(dfd, path, buf, sizeof buf);
            if (len > 0) {
                p->nofile = limits_nofile(buf, (size_t) len);
            }
        }
        if ((flags & PF_THREADS) && p->base.fields[19] > 1) { /* field 20: num_threads */
            thread_switches(dfd, e->d_name, path, buf, sizeof buf, p);
        }
        count++;
    }
    closedir(dir);
    return count;
}

/* ---------------- NVML, called directly ---------------- */

typedef int nvml_rc;
typedef struct { unsigned int gpu, memory; } pf_utilization;
typedef struct { unsigned int version; unsigned long long total, reserved, free, used; } pf_memory_v2;
typedef struct { unsigned int version; int sensorType; int temperature; } pf_temperature_v1;
typedef struct {
    unsigned int fieldId, scopeId;
    long long timestamp, latencyUsec;
    int valueType, nvmlReturn;
    unsigned long long value; /* the 8-byte nvmlValue_t union */
} pf_field_value;                /* nvmlFieldValue_t */
typedef struct {
    int featureCode;
    unsigned int featureState;
    char licenseInfo[128], productName[128];
    unsigned int featureEnabled;
    struct { unsigned int year; unsigned short month, day, hour, min, sec; unsigned char status; } licenseExpiry;
} pf_grid_feature;               /* nvmlGridLicensableFeature_t */
typedef struct {
    int isGridLicenseSupported;
    unsigned int licensableFeaturesCount;
    pf_grid_feature gridLicensableFeatures[3];
} pf_grid_features;              /* nvmlGridLicensableFeatures_t */

#define PF_STRUCT_VERSION(type, ver) ((unsigned int) (sizeof(type) | ((ver) << 24U)))

/* What one sample holds; the same facts GpuDevice.sample() returns. */
typedef struct {
    unsigned int util_gpu, util_mem;
    unsigned long long mem_total, mem_reserved, mem_free, mem_used;
    int temperature;
    unsigned int power_mw, enforced_mw, management_mw;
    unsigned long long energy_mj;
    unsigned int clocks[5];
    unsigned int pstate, fan;
    unsigned long long reasons;
    unsigned long long ecc[4];
    unsigned int enc_util, dec_util, mem_temp;
    unsigned long long nvlink_tx_kib, nvlink_rx_kib;
    int vgpu_licensed;
    int failures;
} pf_gpu_sample;

static void *nvml;
static void *device;
static nvml_rc (*p_init)(void);
static nvml_rc (*p_shutdown)(void);
static nvml_rc (*p_handle)(unsigned int, void **);
static nvml_rc (*p_util)(void *, pf_utilization *);
static nvml_rc (*p_memory)(void *, pf_memory_v2 *);
static nvml_rc (*p_temperature)(void *, pf_temperature_v1 *);
static nvml_rc (*p_power)(void *, unsigned int *);
static nvml_rc (*p_enforced)(void *, unsigned int *);
static nvml_rc (*p_management)(void *, unsigned int *);
static nvml_rc (*p_energy)(void *, unsigned long long *);
static nvml_rc (*p_clock)(void *, int, unsigned int *);
static nvml_rc (*p_max_clock)(void *, int, unsigned int *);
static nvml_rc (*p_pstate)(void *, unsigned int *);
static nvml_rc (*p_fan)(void *, unsigned int *);
static nvml_rc (*p_reasons)(void *, unsigned long long *);
static nvml_rc (*p_ecc)(void *, int, int, unsigned long long *);
static nvml_rc (*p_fields)(void *, int, pf_field_value *);
static nvml_rc (*p_encoder)(void *, unsigned int *, unsigned int *);
static nvml_rc (*p_decoder)(void *, unsigned int *, unsigned int *);
static nvml_rc (*p_grid)(void *, pf_grid_features *);

#define PF_SYM(var, name) \
    do { *(void **) (&(var)) = dlsym(nvml, name); if ((var) == NULL) { return -2; } } while (0)

long pf_sample_size(void) {
    return (long) sizeof(pf_gpu_sample);
}

/*
 * Loads the library at path, initializes NVML and takes device 0. Returns 0, -1 if the library cannot be
 * loaded, -2 if a function is missing, or the NVML return code of a failed call.
 */
int pf_nvml_open(const char *path) {
    nvml = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (nvml == NULL) {
        return -1;
    }
    PF_SYM(p_init, "nvmlInit_v2");
    PF_SYM(p_shutdown, "nvmlShutdown");
    PF_SYM(p_handle, "nvmlDeviceGetHandleByIndex_v2");
    PF_SYM(p_util, "nvmlDeviceGetUtilizationRates");
    PF_SYM(p_memory, "nvmlDeviceGetMemoryInfo_v2");
    PF_SYM(p_temperature, "nvmlDeviceGetTemperatureV");
    PF_SYM(p_power, "nvmlDeviceGetPowerUsage");
    PF_SYM(p_enforced, "nvmlDeviceGetEnforcedPowerLimit");
    PF_SYM(p_management, "nvmlDeviceGetPowerManagementLimit");
    PF_SYM(p_energy, "nvmlDeviceGetTotalEnergyConsumption");
    PF_SYM(p_clock, "nvmlDeviceGetClockInfo");
    PF_SYM(p_max_clock, "nvmlDeviceGetMaxClockInfo");
    PF_SYM(p_pstate, "nvmlDeviceGetPerformanceState");
    PF_SYM(p_fan, "nvmlDeviceGetFanSpeed");
    PF_SYM(p_reasons, "nvmlDeviceGetCurrentClocksEventReasons");
    PF_SYM(p_ecc, "nvmlDeviceGetTotalEccErrors");
    PF_SYM(p_fields, "nvmlDeviceGetFieldValues");
    PF_SYM(p_encoder, "nvmlDeviceGetEncoderUtilization");
    PF_SYM(p_decoder, "nvmlDeviceGetDecoderUtilization");
    PF_SYM(p_grid, "nvmlDeviceGetGridLicensableFeatures_v4");
    nvml_rc rc = p_init();
    if (rc != 0) {
        return rc;
    }
    rc = p_handle(0, &device);
    if (rc != 0) {
        p_shutdown();
        return rc;
    }
    return 0;
}

/* One full sample of device 0 into out; returns how many calls failed (a fan-less board fails one). */
int pf_nvml_sample(pf_gpu_sample *out) {
    int failures = 0;
    pf_utilization u;
    if (p_util(device, &u) == 0) {
        out->util_gpu = u.gpu;
        out->util_mem = u.memory;
    } else {
        failures++;
    }
    pf_memory_v2 m = {.version = PF_STRUCT_VERSION(pf_memory_v2, 2)};
    if (p_memory(device, &m) == 0) {
        out->mem_total = m.total;
        out->mem_reserved = m.reserved;
        out->mem_free = m.free;
        out->mem_used = m.used;
    } else {
        failures++;
    }
    pf_temperature_v1 t = {.version = PF_STRUCT_VERSION(pf_temperature_v1, 1), .sensorType = 0};
    if (p_temperature(device, &t) == 0) {
        out->temperature = t.temperature;
    } else {
        failures++;
    }
    failures += p_power(device, &out->power_mw) != 0;
    failures += p_enforced(device, &out->enforced_mw) != 0;
    failures += p_management(device, &out->management_mw) != 0;
    failures += p_energy(device, &out->energy_mj) != 0;
    failures += p_clock(device, 0, &out->clocks[0]) != 0; /* graphics */
    failures += p_clock(device, 1, &out->clocks[1]) != 0; /* SM */
    failures += p_clock(device, 2, &out->clocks[2]) != 0; /* memory */
    failures += p_max_clock(device, 1, &out->clocks[3]) != 0;
    failures += p_max_clock(device, 2, &out->clocks[4]) != 0;
    failures += p_pstate(device, &out->pstate) != 0;
    failures += p_fan(device, &out->fan) != 0;
    failures += p_reasons(device, &out->reasons) != 0;
    failures += p_ecc(device, 0, 0, &out->ecc[0]) != 0; /* corrected, volatile */
    failures += p_ecc(device, 1, 0, &out->ecc[1]) != 0; /* uncorrected, volatile */
    failures += p_ecc(device, 0, 1, &out->ecc[2]) != 0; /* corrected, aggregate */
    failures += p_ecc(device, 1, 1, &out->ecc[3]) != 0; /* uncorrected, aggregate */
    unsigned int period;
    failures += p_encoder(device, &out->enc_util, &period) != 0;
    failures += p_decoder(device, &out->dec_util, &period) != 0;
    /* memory temperature, NVLink data TX and RX of all links (scope UINT_MAX) */
    pf_field_value f[3] = {{.fieldId = 82}, {.fieldId = 138, .scopeId = 0xFFFFFFFFU}, {.fieldId = 139, .scopeId = 0xFFFFFFFFU}};
    if (p_fields(device, 3, f) == 0) {
        out->mem_temp = f[0].nvmlReturn == 0 ? (unsigned int) f[0].value : 0;
        out->nvlink_tx_kib = f[1].nvmlReturn == 0 ? f[1].value : 0;
        out->nvlink_rx_kib = f[2].nvmlReturn == 0 ? f[2].value : 0;
    } else {
        failures++;
    }
    pf_grid_features g;
    memset(&g, 0, sizeof g);
    if (p_grid(device, &g) == 0) {
        out->vgpu_licensed = -1;
        if (!g.isGridLicenseSupported) {
            out->vgpu_licensed = 0;
        }
        for (unsigned int i = 0; i < g.licensableFeaturesCount && i < 3; i++) {
            if (g.gridLicensableFeatures[i].featureCode == 1) {
                out->vgpu_licensed = g.gridLicensableFeatures[i].featureState != 0;
            }
        }
    } else {
        failures++;
    }
    out->failures = failures;
    return failures;
}

/* Shuts NVML down once (the library stays loaded). */
int pf_nvml_close(void) {
    if (p_shutdown == NULL) {
        return -1;
    }
    device = NULL;
    return p_shutdown();
}
