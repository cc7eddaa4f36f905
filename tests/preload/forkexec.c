/* SPDX-License-Identifier: MIT */
/* fork and exec under the shim with CACHEWISE_PROFILE=.../prof.%p: the
 * parent, a forked child that exits, and a forked child that execs this
 * program again each copy their own size (1111, 2222, 3333 bytes) and print
 * "expect PID SIZE COUNT" / "absent PID SIZE" lines; the test script checks
 * every process wrote its own profile with exactly its own calls (a fork
 * child must not inherit the parent's counts). A worker thread keeps
 * copying across the fork. */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../cwt_exec.h"

typedef void *(*copy_fn)(void *, const void *, size_t);
static copy_fn volatile p_memcpy = memcpy;
static unsigned char src[4096], dst[4096];
static atomic_int stop;

static int copies(size_t size, int count)
{
    for (int i = 0; i < count; i++) {
        p_memcpy(dst, src, size);
        if (memcmp(dst, src, size) != 0)
            return 1;
    }
    return 0;
}

static void *busy(void *arg)
{
    static unsigned char a[256], b[256];
    (void)arg;
    for (unsigned i = 1; !atomic_load(&stop); i++) {
        p_memcpy(a, b, 77);
        if (i % 256 == 0)
            usleep(100); /* keep copying across the forks, without hogging a CPU */
    }
    return NULL;
}

int main(int argc, char **argv)
{
    for (size_t i = 0; i < sizeof src; i++)
        src[i] = (unsigned char)(i * 7);
    if (argc > 1 && strcmp(argv[1], "--exec-child") == 0) {
        if (copies(3333, 5))
            return 1;
        printf("expect %d 3333 5\nabsent %d 1111\nabsent %d 2222\n", (int)getpid(),
               (int)getpid(), (int)getpid());
        return 0;
    }
    pthread_t t;
    if (pthread_create(&t, NULL, busy, NULL) != 0)
        return 1;
    if (copies(1111, 7))
        return 1;
    fflush(stdout);

    pid_t plain = fork();
    if (plain == 0) {
        if (copies(2222, 3))
            _exit(1);
        printf("expect %d 2222 3\nabsent %d 1111\n", (int)getpid(), (int)getpid());
        exit(0); /* exit, not _exit: the profile is written at exit */
    }
    pid_t execd = fork();
    if (execd == 0) {
        copies(2222, 1); /* lost with the exec, as it should be */
        /* execl(), or through the emulator in a cross build */
        char *args[] = {argv[0], (char *)"--exec-child", NULL};
        cwt_execve("/proc/self/exe", args, environ);
        _exit(127);
    }
    int st1, st2;
    if (plain < 0 || execd < 0 || waitpid(plain, &st1, 0) < 0 || waitpid(execd, &st2, 0) < 0)
        return 1;
    if (!WIFEXITED(st1) || WEXITSTATUS(st1) != 0 || !WIFEXITED(st2) || WEXITSTATUS(st2) != 0) {
        fprintf(stderr, "a child failed\n");
        return 1;
    }
    if (copies(1111, 2))
        return 1;
    atomic_store(&stop, 1);
    pthread_join(t, NULL);
    printf("expect %d 1111 9\nabsent %d 2222\nabsent %d 3333\n", (int)getpid(),
           (int)getpid(), (int)getpid());
    return 0;
}
