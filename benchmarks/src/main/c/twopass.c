/*
 * twopass: what reading every process's files in two passes costs the kernel against one pass.
 *
 *   twopass ROUNDS
 *
 * Each round reads, for every process in /proc, the files a default scrape reads (stat, the owner, statm, io,
 * the size of fd, status, limits) twice over, alternating: once in one pass (all of one process's files, then
 * the next process), once in two (stat, owner, statm, io and fd of every process, then status and limits of
 * every process). Prints the calling thread's user and system CPU time per round of each, from getrusage.
 * Built by hand: gcc -std=gnu11 -O2 -o twopass twopass.c
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#define MAX_PIDS 100000

static char buf[8192];

/* Reads PID/LEAF to its end. */
static void read_file(int proc, const char *pid, const char *leaf) {
    char path[64];
    snprintf(path, sizeof path, "%.15s/%s", pid, leaf);
    int fd = openat(proc, path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        return;
    }
    while (read(fd, buf, sizeof buf) > 0) {
    }
    close(fd);
}

/* Stats PID, or PID/LEAF. */
static void stat_file(int proc, const char *pid, const char *leaf) {
    char path[64];
    struct stat st;
    if (leaf != NULL) {
        snprintf(path, sizeof path, "%.15s/%s", pid, leaf);
    } else {
        snprintf(path, sizeof path, "%.15s", pid);
    }
    fstatat(proc, path, &st, AT_SYMLINK_NOFOLLOW);
}

static void first_files(int proc, const char *pid) {
    read_file(proc, pid, "stat");
    stat_file(proc, pid, NULL);
    read_file(proc, pid, "statm");
    read_file(proc, pid, "io");
    stat_file(proc, pid, "fd");
}

static void second_files(int proc, const char *pid) {
    read_file(proc, pid, "status");
    read_file(proc, pid, "limits");
}

static int list_pids(char (*out)[16], int cap) {
    DIR *d = opendir("/proc");
    if (d == NULL) {
        return -1;
    }
    int n = 0;
    struct dirent *e;
    while (n < cap && (e = readdir(d)) != NULL) {
        if (e->d_name[0] >= '1' && e->d_name[0] <= '9' && strlen(e->d_name) < 16) {
            strcpy(out[n++], e->d_name);
        }
    }
    closedir(d);
    return n;
}

static double millis(struct timeval t) {
    return t.tv_sec * 1e3 + t.tv_usec / 1e3;
}

int main(int argc, char **argv) {
    int rounds = argc > 1 ? atoi(argv[1]) : 0;
    if (rounds < 1) {
        fprintf(stderr, "usage: twopass ROUNDS (at least 1)\n");
        return 2;
    }
    static char pids[MAX_PIDS][16];
    int proc = open("/proc", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (proc < 0) {
        perror("/proc");
        return 1;
    }
    double user[2] = {0, 0};
    double sys[2] = {0, 0};
    int processes = 0;
    for (int r = 0; r < rounds; r++) {
        for (int passes = 0; passes < 2; passes++) {
            struct rusage before, after;
            getrusage(RUSAGE_THREAD, &before);
            int n = list_pids(pids, MAX_PIDS);
            processes = n;
            for (int i = 0; i < n; i++) {
                first_files(proc, pids[i]);
                if (passes == 0) {
                    second_files(proc, pids[i]);
                }
            }
            if (passes == 1) {
                for (int i = 0; i < n; i++) {
                    second_files(proc, pids[i]);
                }
            }
            getrusage(RUSAGE_THREAD, &after);
            user[passes] += millis(after.ru_utime) - millis(before.ru_utime);
            sys[passes] += millis(after.ru_stime) - millis(before.ru_stime);
        }
    }
    printf("%d processes, %d rounds; one pass: user %.2f, system %.2f ms; two passes: user %.2f, system %.2f ms;"
           " two / one %.3f\n", processes, rounds, user[0] / rounds, sys[0] / rounds, user[1] / rounds,
           sys[1] / rounds, (user[1] + sys[1]) / (user[0] + sys[0]));
    return 0;
}
