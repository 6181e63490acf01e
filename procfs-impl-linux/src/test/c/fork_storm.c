/*
 * Test helper: a storm of processes. Forks COUNT children (argv[1]) as fast as it can; every EXEC_EVERY-th
 * (argv[3]; 0 for none) execs sleep for HOLD_MS (argv[2]) milliseconds, or true when HOLD_MS is 0, and the others
 * stay forks of this program (their name is its own), sleep HOLD_MS and exit. Then it reaps them all, prints the
 * number of children, and exits 0. Exits 1 with a message when a fork fails. With a fourth argument "hold", it
 * keeps its exited children as zombies until its standard input ends, and reaps them only then.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

int main(int argc, char **argv) {
    long count = argc > 1 ? atol(argv[1]) : 2000;
    long hold = argc > 2 ? atol(argv[2]) : 0;
    long every = argc > 3 ? atol(argv[3]) : 0;
    char seconds[32];
    snprintf(seconds, sizeof seconds, "%ld.%03ld", hold / 1000, hold % 1000);
    for (long i = 0; i < count; i++) {
        pid_t pid = fork();
        if (pid < 0) {
            fprintf(stderr, "fork %ld: %s\n", i, strerror(errno));
            return 1;
        }
        if (pid == 0) {
            if (every > 0 && i % every == 0) {
                if (hold > 0) {
                    execlp("sleep", "sleep", seconds, (char *) NULL);
                } else {
                    execlp("true", "true", (char *) NULL);
                }
                _exit(127);
            }
            if (hold > 0) {
                struct timespec t = {hold / 1000, (hold % 1000) * 1000000L};
                nanosleep(&t, NULL);
            }
            _exit(0);
        }
    }
    if (argc > 4 && strcmp(argv[4], "hold") == 0) {
        char buf[64];
        while (fread(buf, 1, sizeof buf, stdin) > 0) {
        }
    }
    long reaped = 0;
    while (wait(NULL) > 0) {
        reaped++;
    }
    printf("%ld\n", reaped);
    fflush(stdout);
    return 0;
}
