/*
 * Test helper: makes N separate mappings (argv[1], default 100000) by mapping one anonymous region of N pages
 * and making every other page read-only, so that no two neighbours can merge (an unmapped page on either side
 * keeps the first and last from merging with other mappings); touches every third page so
 * that the regions differ in what is resident and dirty; prints the region's first address and its pid, then
 * sleeps until it is killed. Exits 1 with a message when a call is refused (vm.max_map_count too low).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

int main(int argc, char **argv) {
    long n = argc > 1 ? atol(argv[1]) : 100000;
    long page = sysconf(_SC_PAGESIZE);
    char *all = mmap(NULL, (n + 2) * page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (all == MAP_FAILED) {
        fprintf(stderr, "mmap: %s\n", strerror(errno));
        return 1;
    }
    char *base = all + page;
    if (munmap(all, page) != 0 || munmap(base + n * page, page) != 0) {
        fprintf(stderr, "munmap: %s\n", strerror(errno));
        return 1;
    }
    for (long i = 0; i < n; i += 3) {
        base[i * page] = 1;
    }
    for (long i = 0; i < n; i += 2) {
        if (mprotect(base + i * page, page, PROT_READ) != 0) {
            fprintf(stderr, "mprotect at page %ld: %s\n", i, strerror(errno));
            return 1;
        }
    }
    printf("%lx %d\n", (unsigned long) base, (int) getpid());
    fflush(stdout);
    for (;;) {
        pause();
    }
}
