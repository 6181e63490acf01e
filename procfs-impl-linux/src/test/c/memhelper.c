/*
 * A scriptable test process: reads one command per line on stdin, answers one line on stdout.
 *
 *   reserve MIB          mmap MIB MiB of private anonymous memory, touching none of it -> "ok ADDRESS"
 *   touch MIB            write to the first MIB MiB of that reservation              -> "ok"
 *   open PATH FLAGS      open(2) PATH with comma-separated flags (rdonly, wronly, rdwr, append, cloexec,
 *                        nonblock, creat, trunc, sync, noatime)                       -> "ok FD"
 *   mkfile PATH MIB      create PATH holding MIB MiB of written data, keep it open     -> "ok FD"
 *   close FD             close(2)                                                       -> "ok"
 *   pid                                                                                 -> "ok PID"
 *   exit                 exit 0
 *
 * Errors answer "err ERRNO".
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

static char *region;
static size_t region_size;

static int parse_flags(char *s) {
    int flags = 0;
    for (char *tok = strtok(s, ","); tok; tok = strtok(NULL, ",")) {
        if (!strcmp(tok, "rdonly")) flags |= O_RDONLY;
        else if (!strcmp(tok, "wronly")) flags |= O_WRONLY;
        else if (!strcmp(tok, "rdwr")) flags |= O_RDWR;
        else if (!strcmp(tok, "append")) flags |= O_APPEND;
        else if (!strcmp(tok, "cloexec")) flags |= O_CLOEXEC;
        else if (!strcmp(tok, "nonblock")) flags |= O_NONBLOCK;
        else if (!strcmp(tok, "creat")) flags |= O_CREAT;
        else if (!strcmp(tok, "trunc")) flags |= O_TRUNC;
        else if (!strcmp(tok, "sync")) flags |= O_SYNC;
        else if (!strcmp(tok, "noatime")) flags |= O_NOATIME;
        else return -1;
    }
    return flags;
}

int main(void) {
    char line[4096];
    setvbuf(stdout, NULL, _IOLBF, 0);
    while (fgets(line, sizeof line, stdin)) {
        line[strcspn(line, "\n")] = 0;
        char *cmd = strtok(line, " ");
        if (!cmd) continue;
        if (!strcmp(cmd, "reserve")) {
            size_t mib = strtoul(strtok(NULL, " "), NULL, 10);
            region_size = mib << 20;
            region = mmap(NULL, region_size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE,
                          -1, 0);
            if (region == MAP_FAILED) { printf("err %d\n", errno); continue; }
            printf("ok %lx\n", (unsigned long) region);
        } else if (!strcmp(cmd, "touch")) {
            size_t mib = strtoul(strtok(NULL, " "), NULL, 10);
            if (!region || (mib << 20) > region_size) { printf("err %d\n", EINVAL); continue; }
            for (size_t i = 0; i < (mib << 20); i += 4096) region[i] = 1;
            printf("ok\n");
        } else if (!strcmp(cmd, "open")) {
            char *path = strtok(NULL, " ");
            char *fl = strtok(NULL, " ");
            int flags = fl ? parse_flags(fl) : O_RDONLY;
            if (!path || flags < 0) { printf("err %d\n", EINVAL); continue; }
            int fd = open(path, flags, 0644);
            if (fd < 0) { printf("err %d\n", errno); continue; }
            printf("ok %d\n", fd);
        } else if (!strcmp(cmd, "mkfile")) {
            char *path = strtok(NULL, " ");
            size_t mib = strtoul(strtok(NULL, " "), NULL, 10);
            int fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0644);
            if (fd < 0) { printf("err %d\n", errno); continue; }
            static char block[1 << 20];
            memset(block, 'x', sizeof block);
            int failed = 0;
            for (size_t i = 0; i < mib && !failed; i++) {
                if (write(fd, block, sizeof block) != (ssize_t) sizeof block) failed = errno ? errno : EIO;
            }
            if (failed || fsync(fd) != 0) { printf("err %d\n", failed ? failed : errno); continue; }
            printf("ok %d\n", fd);
        } else if (!strcmp(cmd, "close")) {
            int fd = atoi(strtok(NULL, " "));
            printf(close(fd) == 0 ? "ok\n" : "err %d\n", errno);
        } else if (!strcmp(cmd, "pid")) {
            printf("ok %d\n", (int) getpid());
        } else if (!strcmp(cmd, "exit")) {
            return 0;
        } else {
            printf("err %d\n", EINVAL);
        }
    }
    return 0;
}
