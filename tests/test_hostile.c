/* SPDX-License-Identifier: MIT */
/* What a hostile or buggy caller can pass: sizes above PTRDIFF_MAX, and a
 * NULL source for cw_copy_safe.
 *
 * Sizes above PTRDIFF_MAX (the contract in include/cachewise.h): every entry
 * point either reports EINVAL (cw_copy, cw_copy_safe) or stops the process
 * with SIGABRT (the memcpy-shaped ones), and none writes a byte anywhere.
 * Each call runs in a child process whose destination lies in the middle of
 * a shared mapping; the parent checks how the child ended and that every
 * byte of the mapping, below dst and above it, is still the canary. The
 * source is 100 readable bytes followed by a PROT_NONE page, as in the
 * report that found writes below dst.
 *
 * Run once per implementation (CACHEWISE_IMPL), like the copy tests. */
#include <stdint.h>
#include <sys/mman.h>
#include <sys/wait.h>

#include "test_util.h"

#define CANARY 0xa5
enum { AREA = 64 << 10, DST_OFF = 32 << 10 };
enum expect { EXPECT_ABORT, EXPECT_NULL_EINVAL, EXPECT_N_EINVAL };

static unsigned char *area; /* MAP_SHARED: the child's writes are visible */
static const unsigned char *src100;

struct entry {
    const char *name;
    enum expect expect;
    unsigned hints;
    int kind; /* 0 memcpy 1 memmove 2 nt 3 flushcache 4 persist 5 copy 6 copy_safe */
};

static const struct entry entries[] = {
    {"cw_memcpy", EXPECT_ABORT, 0, 0},
    {"cw_memmove", EXPECT_ABORT, 0, 1},
    {"cw_memcpy_nt", EXPECT_ABORT, 0, 2},
    {"cw_memcpy_flushcache", EXPECT_ABORT, 0, 3},
    {"cw_memcpy_persist", EXPECT_ABORT, 0, 4},
    {"cw_copy(0)", EXPECT_NULL_EINVAL, 0, 5},
    {"cw_copy(DST_REUSE)", EXPECT_NULL_EINVAL, CW_DST_REUSE, 5},
    {"cw_copy(SRC_NOREUSE|DST_REUSE)", EXPECT_NULL_EINVAL, CW_SRC_NOREUSE | CW_DST_REUSE, 5},
    {"cw_copy(DST_NOREUSE)", EXPECT_NULL_EINVAL, CW_DST_NOREUSE, 5},
    {"cw_copy(SRC_NOREUSE)", EXPECT_NULL_EINVAL, CW_SRC_NOREUSE, 5},
    {"cw_copy(PERSIST)", EXPECT_NULL_EINVAL, CW_PERSIST, 5},
    {"cw_copy_safe(0)", EXPECT_N_EINVAL, 0, 6},
    {"cw_copy_safe(ZERO_TAIL)", EXPECT_N_EINVAL, CW_ZERO_TAIL, 6},
    {"cw_copy_safe(DST_REUSE)", EXPECT_N_EINVAL, CW_DST_REUSE, 6},
    {"cw_copy_safe(PERSIST)", EXPECT_N_EINVAL, CW_PERSIST, 6},
};

/* The child: one call, then an exit code saying what it returned. */
static int child(const struct entry *e, size_t n)
{
    /* the parent counts on SIGABRT, not on a core dump or a handler */
    signal(SIGABRT, SIG_DFL);
    void *dst = area + DST_OFF;
    errno = 0;
    switch (e->kind) {
    case 0: cw_memcpy(dst, src100, n); break;
    case 1: cw_memmove(dst, src100, n); break;
    case 2: cw_memcpy_nt(dst, src100, n); break;
    case 3: cw_memcpy_flushcache(dst, src100, n); cw_drain(); break;
    case 4: cw_memcpy_persist(dst, src100, n); break;
    case 5: {
        void *r = cw_copy(dst, src100, n, e->hints);
        return r == NULL && errno == EINVAL ? 10 : 11;
    }
    case 6: {
        size_t r = cw_copy_safe(dst, src100, n, e->hints);
        return r == n && errno == EINVAL ? 10 : 11;
    }
    }
    return 12; /* returned as if it had copied */
}

static void check_untouched(const char *what, size_t n)
{
    size_t first = AREA;
    for (size_t i = 0; i < AREA; i++)
        if (area[i] != CANARY) {
            first = i;
            break;
        }
    CWT_CHECK(first == AREA, "%s n=%#zx: byte at dst%+ld written", what, n,
              (long)first - DST_OFF);
}

static void oversize(void)
{
    const size_t sizes[] = {(size_t)PTRDIFF_MAX + 1, SIZE_MAX - 63, SIZE_MAX - 1, SIZE_MAX};
    for (size_t i = 0; i < sizeof entries / sizeof entries[0]; i++) {
        for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; k++) {
            const struct entry *e = &entries[i];
            size_t n = sizes[k];
            memset(area, CANARY, AREA);
            fflush(stdout);
            pid_t pid = fork();
            if (pid == 0)
                _exit(child(e, n));
            int st = 0;
            CWT_CHECK(pid > 0 && waitpid(pid, &st, 0) == pid, "fork/wait failed");
            if (e->expect == EXPECT_ABORT)
                CWT_CHECK(WIFSIGNALED(st) && WTERMSIG(st) == SIGABRT,
                          "%s n=%#zx: want SIGABRT, got %s %d", e->name, n,
                          WIFSIGNALED(st) ? "signal" : "exit",
                          WIFSIGNALED(st) ? WTERMSIG(st) : WEXITSTATUS(st));
            else
                CWT_CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 10,
                          "%s n=%#zx: want %s with errno EINVAL, got %s %d", e->name, n,
                          e->expect == EXPECT_N_EINVAL ? "n" : "NULL",
                          WIFSIGNALED(st) ? "signal" : "exit",
                          WIFSIGNALED(st) ? WTERMSIG(st) : WEXITSTATUS(st));
            check_untouched(e->name, n);
        }
    }
    /* PTRDIFF_MAX itself is a legal size: the copy faults on the source's
     * guard page as glibc's does (not checked: a fault is the documented
     * outcome), but cw_copy_safe must report it exactly */
    memset(area, CANARY, AREA);
    size_t r = cw_copy_safe(area + DST_OFF, src100, (size_t)PTRDIFF_MAX, 0);
    CWT_CHECK(r == (size_t)PTRDIFF_MAX - 100, "cw_copy_safe n=PTRDIFF_MAX: returned %zu", r);
    for (size_t i = 0; i < 100; i++)
        CWT_CHECK(area[DST_OFF + i] == src100[i], "cw_copy_safe n=PTRDIFF_MAX: byte %zu", i);
    area[DST_OFF + 100] = CANARY; /* unspecified beyond the copied part */
    for (size_t i = 0; i < DST_OFF; i++)
        CWT_CHECK(area[i] == CANARY, "cw_copy_safe n=PTRDIFF_MAX wrote below dst");
}

/* cw_copy_safe(dst, NULL, n, CW_ZERO_TAIL) must leave dst as an unreadable
 * (PROT_NONE) source does: zeroed, n returned. */
static void null_source(const unsigned char *unreadable)
{
    unsigned flags[] = {CW_ZERO_TAIL, CW_ZERO_TAIL | CW_DST_NOREUSE, CW_ZERO_TAIL | CW_PERSIST, 0};
    size_t sizes[] = {1, 8, 100, 4096, 70000};
    for (size_t f = 0; f < sizeof flags / sizeof flags[0]; f++) {
        for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; k++) {
            size_t n = sizes[k];
            unsigned char *a = area, *b = area + AREA / 2;
            if (n > AREA / 2 - 64) {
                a = malloc(n + 64);
                b = malloc(n + 64);
            }
            memset(a, CANARY, n + 64);
            memset(b, CANARY, n + 64);
            size_t ra = cw_copy_safe(a, NULL, n, flags[f]);
            size_t rb = cw_copy_safe(b, unreadable, n, flags[f]);
            CWT_CHECK(ra == n && rb == n, "flags %#x n %zu: NULL returned %zu, PROT_NONE %zu",
                      flags[f], n, ra, rb);
            CWT_CHECK(memcmp(a, b, n + 64) == 0,
                      "flags %#x n %zu: NULL source and PROT_NONE source leave different bytes",
                      flags[f], n);
            for (size_t i = 0; i < n; i++)
                if (a[i] != ((flags[f] & CW_ZERO_TAIL) ? 0 : CANARY)) {
                    cwt_fail("flags %#x n %zu: byte %zu is %#x", flags[f], n, i, a[i]);
                    break;
                }
            CWT_CHECK(a[n] == CANARY, "flags %#x n %zu: byte past the end written", flags[f], n);
            if (a != area) {
                free(a);
                free(b);
            }
        }
    }
}

int main(void)
{
    cwt_report_crashes();
    int rc = cwt_check_forced_impl("test_hostile");
    if (rc != 0)
        return rc;
    long page = sysconf(_SC_PAGESIZE);
    area = mmap(NULL, AREA, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    unsigned char *s = mmap(NULL, 2 * (size_t)page, PROT_READ | PROT_WRITE,
                            MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (area == MAP_FAILED || s == MAP_FAILED) {
        perror("mmap");
        return 1;
    }
    for (long i = 0; i < page; i++)
        s[i] = (unsigned char)(i * 7 + 1);
    mprotect(s + page, (size_t)page, PROT_NONE);
    src100 = s + page - 100;
    oversize();
    null_source(s + page);
    return cwt_finish("test_hostile");
}
