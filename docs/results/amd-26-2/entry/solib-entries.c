/* SPDX-License-Identifier: MIT */
/* Shared libraries' cw_memcpy (each the entry its IFUNC resolver chose,
 * through dlsym; up to five libraries, named A, B, C... in the output) and
 * glibc's memcpy in one process, interleaved round by round, each through
 * a volatile function pointer from one loop:
 *   fixed SOFF DOFF N...  hot copies of N bytes at those offsets;
 *   dist FILE             sizes drawn from a "size probability" file, each
 *                         call at fresh random offsets in a 64 KiB region.
 * Medians of 21 rounds of 65536 calls, ns a call; X/A is A's time over X's.
 *   gcc -O2 solib-entries.c -ldl -o solib-entries
 *   taskset -c 1 ./solib-entries ./A.so ./B.so fixed 0 0 16 64 128
 *   taskset -c 1 ./solib-entries ./A.so ./B.so dist data/program-profiles/sqlite3.sizes
 * (a library's path must contain ".so" and, for dlopen, a slash). */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "harness.h"

typedef void *(*copy_fn)(void *, const void *, size_t);
enum { N = 1 << 16, ROUNDS = 21, REGION = 1 << 16, MAXR = 6 };
static int ROUTINES;
static const char *names[MAXR] = {"glibc", "A", "B", "C", "D", "E"};
static size_t n[N], so[N], dof[N];

static copy_fn load(const char *path)
{
    void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (h == NULL) {
        fprintf(stderr, "%s\n", dlerror());
        exit(1);
    }
    return (copy_fn)dlsym(h, "cw_memcpy");
}

static void report(const char *what, double t[MAXR][ROUNDS])
{
    double m[MAXR];
    printf("%-16s", what);
    for (int j = 0; j < ROUTINES; j++)
        printf("  %s %.2f", names[j], m[j] = median(t[j], ROUNDS));
    printf(" ns ");
    for (int j = 2; j < ROUTINES; j++)
        printf(" %s/A %.3f", names[j], m[1] / m[j]);
    printf("\n");
}

static void timed(copy_fn fns[MAXR], unsigned char *s, unsigned char *d, size_t fixed,
                  double t[MAXR][ROUNDS])
{
    for (int r = 0; r < ROUNDS; r++)
        for (int j0 = 0; j0 < ROUTINES; j0++) {
            int j = (j0 + r) % ROUTINES;
            volatile copy_fn vf = fns[j];
            copy_fn g = vf;
            double t0 = now();
            if (fixed != 0) {
                for (int k = 0; k < N; k++) {
                    g(d, s, fixed);
                    __asm__ volatile("" ::: "memory");
                }
            } else {
                for (int k = 0; k < N; k++) {
                    g(d + dof[k], s + so[k], n[k]);
                    __asm__ volatile("" ::: "memory");
                }
            }
            t[j][r] = (now() - t0) / N;
        }
}

int main(int argc, char **argv)
{
    copy_fn fns[MAXR] = {(copy_fn)memcpy};
    ROUTINES = 1;
    while (ROUTINES < argc && ROUTINES < MAXR && strstr(argv[ROUTINES], ".so") != NULL) {
        fns[ROUTINES] = load(argv[ROUTINES]);
        ROUTINES++;
    }
    argv += ROUTINES - 3;
    argc -= ROUTINES - 3;
    if (argc < 5)
        return 2;
    unsigned char *buf = touched_buffer(1 << 24);
    if (buf == NULL)
        return 1;
    double t[MAXR][ROUNDS];
    if (strcmp(argv[3], "dist") == 0) {
        if (draw_sizes(argv[4], N, n, so, dof, REGION - 4096) != 0)
            return 1;
        timed(fns, buf, buf + (1 << 23), 0, t);
        const char *base = strrchr(argv[4], '/');
        report(base != NULL ? base + 1 : argv[4], t);
        return 0;
    }
    if (strcmp(argv[3], "fixed") != 0 || argc < 7)
        return 2;
    int soff = atoi(argv[4]), doff = atoi(argv[5]);
    for (int a = 6; a < argc; a++) {
        size_t len = (size_t)atoi(argv[a]);
        timed(fns, buf + 4096 + soff, buf + (1 << 20) + doff, len, t);
        char what[32];
        snprintf(what, sizeof what, "%zu B %d:%d", len, soff, doff);
        report(what, t);
    }
    return 0;
}
