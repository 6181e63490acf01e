/*
 * Test helper: locks 64 KiB of its memory with mlock(2) (VmLck of /proc/PID/status becomes 64 kB, and ps
 * shows L in STAT), prints its pid, then sleeps until it is killed. Exits 1 with a message if the lock is
 * refused (RLIMIT_MEMLOCK below 64 KiB without CAP_IPC_LOCK).
 */
#include <stdio.h>
#include <string.h>
#include <errno.h>
#include <sys/mman.h>
#include <unistd.h>

static char buffer[64 * 1024] __attribute__((aligned(4096)));

int main(void) {
    memset(buffer, 1, sizeof buffer);
    if (mlock(buffer, sizeof buffer) != 0) {
        fprintf(stderr, "mlock: %s\n", strerror(errno));
        return 1;
    }
    printf("%d\n", (int) getpid());
    fflush(stdout);
    for (;;) {
        pause();
    }
}
