/*
 * Forces pid reuse inside a PID namespace, driven line by line on stdin:
 *   a  fork a child A that waits for a signal; print "A <pid>"
 *   r  KILL and reap A, write ns_last_pid = A - 1, fork a newcomer B; print "B <pid>" (equal to A when the
 *      reuse worked)
 *   c  report how B is: "alive", or "signalled <n>" if a signal ended it (one still pending counts: it is
 *      waited for); then KILL and reap it; print "checked"
 * It must run in a PID namespace of its own where it may write /proc/sys/kernel/ns_last_pid (root there).
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>
#include <fcntl.h>

static pid_t spawn_waiter(void) {
    pid_t p = fork();
    if (p == 0) {
        signal(SIGTERM, SIG_DFL);
        for (;;) {
            pause();
        }
    }
    return p;
}

/* Whether a signal is pending for the process (SigPnd or ShdPnd of /proc/PID/status not zero). */
static int pending(pid_t pid) {
    char path[64], line[256];
    snprintf(path, sizeof path, "/proc/%d/status", (int) pid);
    FILE *f = fopen(path, "r");
    int any = 0;
    if (f == NULL) {
        return 0;
    }
    while (fgets(line, sizeof line, f) != NULL) {
        if (strncmp(line, "SigPnd:", 7) == 0 || strncmp(line, "ShdPnd:", 7) == 0) {
            if (strtoull(line + 7, NULL, 16) != 0) {
                any = 1;
            }
        }
    }
    fclose(f);
    return any;
}

int main(void) {
    char line[64];
    pid_t a = 0, b = 0;
    setvbuf(stdout, NULL, _IOLBF, 0);
    while (fgets(line, sizeof line, stdin) != NULL) {
        if (line[0] == 'a') {
            a = spawn_waiter();
            printf("A %d\n", (int) a);
        } else if (line[0] == 'r') {
            kill(a, SIGKILL);
            waitpid(a, NULL, 0);
            int fd = open("/proc/sys/kernel/ns_last_pid", O_WRONLY);
            if (fd < 0) {
                printf("error ns_last_pid: %s\n", strerror(errno));
                continue;
            }
            char buf[32];
            int n = snprintf(buf, sizeof buf, "%d", (int) a - 1);
            if (write(fd, buf, n) != n) {
                printf("error write ns_last_pid: %s\n", strerror(errno));
                close(fd);
                continue;
            }
            close(fd);
            b = spawn_waiter();
            printf("B %d\n", (int) b);
        } else if (line[0] == 'c') {
            int status;
            pid_t r = waitpid(b, &status, WNOHANG);
            if (r == 0 && pending(b)) {
                /* A signal is queued for B but has not ended it yet: that is a hit too. */
                r = waitpid(b, &status, 0);
            } else if (r == 0) {
                /* A signal being acted on is neither pending nor done: look again a little later. */
                usleep(20000);
                r = waitpid(b, &status, WNOHANG);
            }
            if (r == 0) {
                printf("alive\n");
                kill(b, SIGKILL);
                waitpid(b, NULL, 0);
            } else if (r == b && WIFSIGNALED(status)) {
                printf("signalled %d\n", WTERMSIG(status));
            } else {
                printf("ended %d\n", status);
            }
            printf("checked\n");
        }
    }
    return 0;
}
