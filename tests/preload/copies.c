/* SPDX-License-Identifier: MIT */
/* Every-byte check of the interposed memcpy/memmove/mempcpy/__*_chk: sizes
 * 0..1100 one by one, then steps up to 70 KiB and a few large copies, with
 * varying source/destination alignment, guard bytes on both sides of the
 * destination, and overlapping moves in both directions (memcpy included:
 * glibc's memcpy tolerates overlap, so the shim must too). Run under the
 * shim with several policies and implementations by tests/preload.cmake. */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "interposed.h"

#define GUARD 80
static unsigned char *src, *dst, *ref;
static size_t cap;
static unsigned long failures;

static uint64_t rng = 88172645463325252ull;
static unsigned rnd(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return (unsigned)rng;
}

static void fail(const char *what, size_t n, size_t sa, size_t da, size_t at)
{
    if (failures++ < 10)
        fprintf(stderr, "FAIL %s n=%zu src+%zu dst+%zu: byte %zu\n", what, n, sa, da, at);
}

/* Disjoint copy of n bytes by entry point `which`. */
static void one(int which, size_t n, size_t sa, size_t da)
{
    static const char *names[] = {"memcpy", "memmove", "mempcpy", "__memcpy_chk",
                                  "__memmove_chk", "__mempcpy_chk"};
    unsigned char fill = (unsigned char)rnd();
    for (size_t i = 0; i < n + da + 2 * GUARD; i++)
        dst[i] = fill;
    unsigned char *d = dst + GUARD + da;
    const unsigned char *s = src + sa;
    void *ret = NULL, *want = d;
    switch (which) {
    case 0: ret = p_memcpy(d, s, n); break;
    case 1: ret = p_memmove(d, s, n); break;
    case 2: ret = p_mempcpy(d, s, n); want = d + n; break;
    case 3: ret = p_memcpy_chk(d, s, n, n); break;
    case 4: ret = p_memmove_chk(d, s, n, n + 100); break;
    default: ret = p_mempcpy_chk(d, s, n, (size_t)-1); want = d + n; break;
    }
    if (ret != want)
        fail(names[which], n, sa, da, (size_t)-1);
    for (size_t i = 0; i < n; i++)
        if (d[i] != s[i]) {
            fail(names[which], n, sa, da, i);
            return;
        }
    for (size_t i = 0; i < GUARD + da; i++)
        if (dst[i] != fill)
            fail("guard below", n, sa, da, i);
    for (size_t i = 0; i < GUARD; i++)
        if (d[n + i] != fill)
            fail("guard above", n, sa, da, i);
}

/* Overlapping move of n bytes from ref+a to ref+b within one buffer. */
static void overlap(int use_memcpy, size_t n, size_t a, size_t b)
{
    for (size_t i = 0; i < n + (a > b ? a : b) + GUARD; i++)
        ref[i] = src[i];
    void *ret = (use_memcpy ? p_memcpy : p_memmove)(ref + b, ref + a, n);
    if (ret != ref + b)
        fail("overlap return", n, a, b, (size_t)-1);
    for (size_t i = 0; i < n; i++)
        if (ref[b + i] != src[a + i]) {
            fail(use_memcpy ? "overlapping memcpy" : "overlapping memmove", n, a, b, i);
            return;
        }
    for (size_t i = 0; i < b; i++)
        if (ref[i] != src[i])
            fail("overlap below", n, a, b, i);
    for (size_t i = b + n; i < b + n + GUARD; i++)
        if (ref[i] != src[i])
            fail("overlap above", n, a, b, i);
}

int main(void)
{
    cap = (size_t)9 << 20;
    /* room for the largest overlapping move: n = cap - 100 from ref + 0 to
     * ref + 4160, plus its guard bytes (it used to run 3.8 KiB past the
     * buffers, unseen where the next mapping followed; under qemu-user, whose
     * mappings grow upwards, it faulted) */
    size_t len = cap + 4 * GUARD + 8192;
    src = malloc(len);
    dst = malloc(len);
    ref = malloc(len);
    if (!src || !dst || !ref)
        return 1;
    for (size_t i = 0; i < cap + 4 * GUARD; i++)
        src[i] = (unsigned char)rnd();
    for (size_t i = cap + 4 * GUARD; i < len; i++) /* rnd()'s sequence as before */
        src[i] = (unsigned char)(i * 131);

    unsigned long count = 0;
    for (size_t n = 0; n <= 70000; n += n < 1100 ? 1 : n < 9000 ? 61 : 997) {
        for (int k = 0; k < 6; k++) {
            one(k, n, rnd() % 64, rnd() % 64);
            count++;
        }
        overlap(n & 1, n, 0, 1 + rnd() % 130);   /* dst above src */
        overlap(n & 1, n, 1 + rnd() % 130, 0);   /* dst below src */
        count += 2;
    }
    static const size_t big[] = {(1u << 20) + 3, (4u << 20) - 1, (9u << 20) - 100};
    for (size_t i = 0; i < sizeof big / sizeof big[0]; i++) {
        one(0, big[i], i * 7, i * 13);
        one(1, big[i], 64, 0);
        overlap(0, big[i], 0, 4096 + 64);
        overlap(1, big[i], 777, 0);
        count += 4;
    }
    if (failures) {
        fprintf(stderr, "%lu failures in %lu copies\n", failures, count);
        return 1;
    }
    printf("%lu copies verified\n", count);
    return 0;
}
