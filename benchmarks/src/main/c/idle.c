/*
 * idle: processes that do nothing, for the benchmarks to read.
 *
 *   idle fleet N       forks N children that wait in pause(); prints each child's pid on a line of its
 *                      own, then "ready"; then waits until its standard input closes.
 *   idle hold DIR K    creates K files of 1 MiB in DIR, keeps each open, unlinks them (deleted files
 *                      still held open, as lsof +L1 lists them), prints "ready", then waits until its
 *                      standard input closes.
 *
 * The benchmark ends every child by its pid, then this process by its pid. As a safety net, when the
 * standard input closes (the benchmark JVM is gone) the fleet kills its own children, and each child
 * is killed by the kernel when its parent dies (PR_SET_PDEATHSIG). Children are reaped automatically
 * (SIGCHLD ignored), so none lingers as a zombie.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/types.h>
#include <unistd.h>

static void wait_for_eof(void) {
    char buf[64];
    for (;;) {
        ssize_t n = read(0, buf, sizeof buf);
        if (n == 0 || (n < 0 && errno != EINTR)) {
            return;
        }
    }
}

static int fleet(long n) {
    pid_t self = getpid();
    pid_t *children = calloc((size_t) n, sizeof *children);
    if (children == NULL) {
        perror("idle: calloc");
        return 1;
    }
    signal(SIGCHLD, SIG_IGN);
    for (long i = 0; i < n; i++) {
        pid_t pid = fork();
        if (pid < 0) {
            perror("idle: fork");
            for (long j = 0; j < i; j++) {
                kill(children[j], SIGKILL);
            }
            return 1;
        }
        if (pid == 0) {
            prctl(PR_SET_PDEATHSIG, SIGKILL);
            if (getppid() != self) {
                _exit(0);
            }
            int devnull = open("/dev/null", O_RDWR);
            if (devnull >= 0) {
                dup2(devnull, 0);
                dup2(devnull, 1);
                close(devnull);
            }
            for (;;) {
                pause();
            }
        }
        children[i] = pid;
        printf("%ld\n", (long) pid);
    }
    printf("ready\n");
    fflush(stdout);
    wait_for_eof();
    for (long i = 0; i < n; i++) {
        if (children[i] > 0) {
            kill(children[i], SIGKILL);
        }
    }
    return 0;
}

static int hold(const char *dir, long k) {
    static char block[1 << 20];
    memset(block, 'x', sizeof block);
    for (long i = 0; i < k; i++) {
        char path[4096];
        snprintf(path, sizeof path, "%s/held-%ld.log", dir, i);
        int fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0600);
        if (fd < 0) {
            perror("idle: open");
            return 1;
        }
        if (write(fd, block, sizeof block) != (ssize_t) sizeof block) {
            perror("idle: write");
            return 1;
        }
        if (unlink(path) != 0) {
            perror("idle: unlink");
            return 1;
        }
    }
    printf("ready\n");
    fflush(stdout);
    wait_for_eof();
    return 0;
}

int main(int argc, char **argv) {
    if (argc == 3 && strcmp(argv[1], "fleet") == 0) {
        return fleet(strtol(argv[2], NULL, 10));
    }
    if (argc == 4 && strcmp(argv[1], "hold") == 0) {
        return hold(argv[2], strtol(argv[3], NULL, 10));
    }
    fprintf(stderr, "usage: idle fleet N | idle hold DIR K\n");
    return 2;
}
