/*
 * Forces pid reuse within one clock tick, cheaply, inside a PID namespace of its own. Driven line by line on stdin:
 *   a  fork an old process A (comm "old") that waits; print "A <pid>"
 *   r  KILL and reap A, set ns_last_pid to A - 1 and fork a newcomer B (comm "newcomer"); print "B <pid>" (equal to
 *      A's pid when the reuse worked)
 *   n  as r, but the newcomer B forks a child X of its own (comm "newcomer" too); print "B <pid> <X>"
 *   t  fork a tree: a root R (comm "root") that reaps its children, and R's child C (comm "child") that waits;
 *      print "T <R> <C>"
 *   u  KILL C and wait until R has reaped it, set ns_last_pid to C - 1 and fork a newcomer B as for r: a child of
 *      this helper, outside the tree; print "B <pid>"
 *   k PID  KILL the process PID (not this helper's child: a job's member, which its own parent reaps), wait until
 *      it has been reaped, set ns_last_pid to PID - 1 and fork a newcomer B as for r; print "B <pid>"
 *   c  check the newcomers forked since the last c, then KILL and reap them, and KILL and reap the roots; print
 *      "hit <pid> <what>" for each newcomer that a signal reached, then "checked <hits>"
 * A newcomer (and its child) blocks every signal it can, so any signal sent to it but KILL stays pending, and KILL
 * ends it: one that has ended or has a signal pending (SIGCHLD aside, the kernel's word that its child ended) was
 * reached. The check waits 20 ms first, once, so that a KILL being acted on has ended its process. Each child is
 * known to have set its name when its pid is printed.
 * It must run where it may write /proc/sys/kernel/ns_last_pid (root of a PID namespace of its own). It is the
 * child subreaper of what it starts, so that a newcomer's child, orphaned when the check ends the newcomer, is
 * reaped here.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define MAX_KEPT 4096

static pid_t newcomers[MAX_KEPT];
static int newcomer_count;
static pid_t roots[MAX_KEPT];
static int root_count;
/* Newcomers' children: not this helper's children while their parent lives. */
static pid_t grandchildren[MAX_KEPT];
static int grandchild_count;

static void wait_forever(void) {
    for (;;) {
        pause();
    }
}

/*
 * Forks a child that names itself, blocks every signal it can if asked, forks a child of its own like itself if
 * asked (its pid stored in *grandchild), says it is ready and waits.
 */
static pid_t spawn_with(const char *name, int block, pid_t *grandchild) {
    int ready[2];
    if (pipe2(ready, O_CLOEXEC) != 0) {
        return -1;
    }
    pid_t p = fork();
    if (p == 0) {
        close(ready[0]);
        prctl(PR_SET_NAME, name, 0, 0, 0);
        if (block) {
            sigset_t all;
            sigfillset(&all);
            sigprocmask(SIG_BLOCK, &all, NULL);
        }
        pid_t g = 0;
        if (grandchild != NULL && (g = spawn_with(name, block, NULL)) < 0) {
            _exit(3);
        }
        if (write(ready[1], &g, sizeof g) != (ssize_t) sizeof g) {
            _exit(3);
        }
        close(ready[1]);
        wait_forever();
    }
    close(ready[1]);
    pid_t g;
    if (p < 0 || read(ready[0], &g, sizeof g) != (ssize_t) sizeof g) {
        close(ready[0]);
        return -1;
    }
    close(ready[0]);
    if (grandchild != NULL) {
        *grandchild = g;
    }
    return p;
}

static pid_t spawn(const char *name, int block) {
    return spawn_with(name, block, NULL);
}

/* The tree's root: forks its child, says the child's pid once the child is ready, then reaps what ends. */
static pid_t spawn_tree(pid_t *child) {
    int ready[2];
    if (pipe2(ready, O_CLOEXEC) != 0) {
        return -1;
    }
    pid_t r = fork();
    if (r == 0) {
        close(ready[0]);
        prctl(PR_SET_NAME, "root", 0, 0, 0);
        pid_t c = spawn("child", 0);
        if (c < 0 || write(ready[1], &c, sizeof c) != (ssize_t) sizeof c) {
            _exit(3);
        }
        close(ready[1]);
        for (;;) {
            if (waitpid(-1, NULL, 0) < 0 && errno == ECHILD) {
                pause();
            }
        }
    }
    close(ready[1]);
    if (r < 0 || read(ready[0], child, sizeof *child) != (ssize_t) sizeof *child) {
        close(ready[0]);
        return -1;
    }
    close(ready[0]);
    return r;
}

static int set_last_pid(pid_t last) {
    int fd = open("/proc/sys/kernel/ns_last_pid", O_WRONLY | O_CLOEXEC);
    if (fd < 0) {
        printf("error ns_last_pid: %s\n", strerror(errno));
        return -1;
    }
    char buf[32];
    int n = snprintf(buf, sizeof buf, "%d", (int) last);
    int ok = write(fd, buf, n) == n;
    if (!ok) {
        printf("error write ns_last_pid: %s\n", strerror(errno));
    }
    close(fd);
    return ok ? 0 : -1;
}

/* Forks a newcomer on the pid just freed, with a child of its own if asked. */
static void newcomer_on(pid_t freed, int family) {
    if (newcomer_count == MAX_KEPT || grandchild_count == MAX_KEPT) {
        printf("error too many newcomers unchecked\n");
        return;
    }
    if (set_last_pid(freed - 1) != 0) {
        return;
    }
    pid_t x = 0;
    pid_t b = spawn_with("newcomer", 1, family ? &x : NULL);
    if (b < 0) {
        printf("error fork: %s\n", strerror(errno));
        return;
    }
    newcomers[newcomer_count++] = b;
    if (family) {
        grandchildren[grandchild_count++] = x;
        printf("B %d %d\n", (int) b, (int) x);
    } else {
        printf("B %d\n", (int) b);
    }
}

/* The state letter of /proc/PID/stat (after the last ')'), or 0 if there is none. */
static char state(pid_t pid) {
    char path[64], buf[512];
    snprintf(path, sizeof path, "/proc/%d/stat", (int) pid);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        return 0;
    }
    ssize_t n = read(fd, buf, sizeof buf - 1);
    close(fd);
    if (n <= 0) {
        return 0;
    }
    buf[n] = 0;
    char *end = strrchr(buf, ')');
    return end != NULL && end[1] == ' ' ? end[2] : 0;
}

/*
 * The pending signals of a process (SigPnd | ShdPnd of /proc/PID/status), 0 if none or unreadable; SIGCHLD aside,
 * which a newcomer gets from the kernel when its own child ends.
 */
static unsigned long long pending(pid_t pid) {
    char path[64], line[256];
    snprintf(path, sizeof path, "/proc/%d/status", (int) pid);
    FILE *f = fopen(path, "re");
    unsigned long long any = 0;
    if (f == NULL) {
        return 0;
    }
    while (fgets(line, sizeof line, f) != NULL) {
        if (strncmp(line, "SigPnd:", 7) == 0 || strncmp(line, "ShdPnd:", 7) == 0) {
            any |= strtoull(line + 7, NULL, 16);
        }
    }
    fclose(f);
    return any & ~(1ULL << (SIGCHLD - 1));
}

static void check(void) {
    int hits = 0;
    usleep(20000);
    for (int i = 0; i < newcomer_count; i++) {
        pid_t b = newcomers[i];
        int status;
        pid_t r = waitpid(b, &status, WNOHANG);
        if (r == b) {
            hits++;
            if (WIFSIGNALED(status)) {
                printf("hit %d signalled %d\n", (int) b, WTERMSIG(status));
            } else {
                printf("hit %d ended %d\n", (int) b, status);
            }
            newcomers[i] = 0; /* reaped: its pid is free */
            continue;
        }
        unsigned long long p = pending(b);
        if (p != 0) {
            hits++;
            printf("hit %d pending %llx\n", (int) b, p);
        }
    }
    for (int i = 0; i < grandchild_count; i++) {
        pid_t x = grandchildren[i];
        char st = state(x);
        if (st == 0 || st == 'Z' || st == 'X') {
            hits++;
            printf("hit %d ended\n", (int) x);
            if (st == 0) {
                grandchildren[i] = 0; /* reaped already: its pid is free */
                continue;
            }
        } else {
            unsigned long long p = pending(x);
            if (p != 0) {
                hits++;
                printf("hit %d pending %llx\n", (int) x, p);
            }
        }
        kill(x, SIGKILL);
    }
    for (int i = 0; i < newcomer_count; i++) {
        if (newcomers[i] != 0) {
            kill(newcomers[i], SIGKILL);
            waitpid(newcomers[i], NULL, 0);
        }
    }
    for (int i = 0; i < grandchild_count; i++) {
        if (grandchildren[i] != 0) {
            waitpid(grandchildren[i], NULL, 0); /* orphaned to this subreaper when its parent ended */
        }
    }
    newcomer_count = 0;
    grandchild_count = 0;
    for (int i = 0; i < root_count; i++) {
        kill(roots[i], SIGKILL);
        waitpid(roots[i], NULL, 0);
    }
    root_count = 0;
    printf("checked %d\n", hits);
}

int main(void) {
    char line[64];
    pid_t a = 0, c = 0;
    setvbuf(stdout, NULL, _IOLBF, 0);
    prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0);
    while (fgets(line, sizeof line, stdin) != NULL) {
        if (line[0] == 'a') {
            a = spawn("old", 0);
            if (a < 0) {
                printf("error fork: %s\n", strerror(errno));
                continue;
            }
            printf("A %d\n", (int) a);
        } else if (line[0] == 'r' || line[0] == 'n') {
            kill(a, SIGKILL);
            waitpid(a, NULL, 0);
            newcomer_on(a, line[0] == 'n');
        } else if (line[0] == 't') {
            if (root_count == MAX_KEPT) {
                printf("error too many roots unchecked\n");
                continue;
            }
            pid_t r = spawn_tree(&c);
            if (r < 0) {
                printf("error fork: %s\n", strerror(errno));
                continue;
            }
            roots[root_count++] = r;
            printf("T %d %d\n", (int) r, (int) c);
        } else if (line[0] == 'u' || line[0] == 'k') {
            if (line[0] == 'k') {
                c = (pid_t) strtol(line + 1, NULL, 10);
                if (c <= 1) {
                    printf("error bad pid %s", line + 1);
                    continue;
                }
            }
            kill(c, SIGKILL);
            struct timespec t0, t;
            clock_gettime(CLOCK_MONOTONIC, &t0);
            int reaped = 1;
            while (kill(c, 0) == 0) { /* a zombie until the root reaps it */
                clock_gettime(CLOCK_MONOTONIC, &t);
                if (t.tv_sec - t0.tv_sec > 10) {
                    reaped = 0;
                    break;
                }
                sched_yield();
            }
            if (!reaped) {
                printf("error child %d not reaped\n", (int) c);
                continue;
            }
            newcomer_on(c, 0);
        } else if (line[0] == 'c') {
            check();
        }
    }
    return 0;
}
