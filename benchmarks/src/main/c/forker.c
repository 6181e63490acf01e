/*
 * Benchmark helper: forks on request, read from standard input one byte at a time.
 *   'f'  fork one child that exits at once; reap it
 *   'r'  as 'f', then write one byte back when the child has been forked (the round trip without events)
 *   'b'  a burst: 2,000 children at 1,000 per second (one each millisecond), each reaped; then write one byte
 * Ends at end of input.
 */
#define _GNU_SOURCE
#include <signal.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static void fork_one(void) {
    pid_t c = fork();
    if (c == 0) {
        _exit(0);
    }
    if (c > 0) {
        waitpid(c, NULL, 0);
    }
}

int main(void) {
    char cmd;
    while (read(0, &cmd, 1) == 1) {
        if (cmd == 'f') {
            fork_one();
        } else if (cmd == 'r') {
            fork_one();
            if (write(1, "r", 1) != 1) {
                return 1;
            }
        } else if (cmd == 'b') {
            struct timespec next;
            clock_gettime(CLOCK_MONOTONIC, &next);
            for (int i = 0; i < 2000; i++) {
                fork_one();
                next.tv_nsec += 1000000;
                if (next.tv_nsec >= 1000000000) {
                    next.tv_nsec -= 1000000000;
                    next.tv_sec++;
                }
                clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &next, NULL);
            }
            if (write(1, "b", 1) != 1) {
                return 1;
            }
        }
    }
    return 0;
}
