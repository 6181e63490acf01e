/*
 * Test helper: allocates and touches memory 1 MiB at a time until the OOM killer ends it (in a memory
 * cgroup with a small limit) or it has touched the number of MiB given as its argument. A second argument
 * waits that many milliseconds first (so that a watcher sees the program before it is killed).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int main(int argc, char **argv) {
    long limit = argc > 1 ? atol(argv[1]) : 4096;
    if (argc > 2) {
        usleep((useconds_t) atol(argv[2]) * 1000);
    }
    for (long i = 0; i < limit; i++) {
        char *p = malloc(1 << 20);
        if (p == NULL) {
            return 2;
        }
        memset(p, 0x5a, 1 << 20);
    }
    puts("survived");
    return 0;
}
