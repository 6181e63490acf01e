/*
 * Test helper: a process with exactly four extra threads named worker-0 .. worker-3 (five tasks in
 * all). Prints its pid once every thread is named, then sleeps until it is killed.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <unistd.h>

static pthread_barrier_t ready;

static void *worker(void *arg) {
    char name[16];
    snprintf(name, sizeof name, "worker-%ld", (long) arg);
    pthread_setname_np(pthread_self(), name);
    pthread_barrier_wait(&ready);
    for (;;) {
        pause();
    }
    return NULL;
}

int main(void) {
    pthread_t t[4];
    pthread_barrier_init(&ready, NULL, 5);
    for (long i = 0; i < 4; i++) {
        pthread_create(&t[i], NULL, worker, (void *) i);
    }
    pthread_barrier_wait(&ready);
    printf("%d\n", (int) getpid());
    fflush(stdout);
    for (;;) {
        pause();
    }
}
