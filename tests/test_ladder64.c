/* SPDX-License-Identifier: MIT */
/* The 64-byte-vector instance of the x86 copy ladder, run on any AVX2 CPU.
 *
 * The avx512 implementation is nothing but src/x86/copy_ladder.h compiled
 * with CWL_W = 64; CPUs without AVX-512 (such as AMD EPYC family 25 model 1,
 * docs/results/amd-25-1/README.md) can never run it. This test compiles the
 * same template with 64-byte "vectors" made of two AVX2 registers, whose
 * aligned and streaming stores abort on an address that isn't 64-byte
 * aligned (a real zmm aligned store faults), and checks every kernel
 * against a byte loop with buffers flush against PROT_NONE pages: the
 * width-dependent paths of the avx512 build are exercised here even though
 * its instructions are not. */
#include <stdio.h>
#include <stdlib.h>

#include "internal.h"
#include "protected_pages.h"
#include "test_util.h"

/* ladder64_row.c: the template instance, built with -mavx2 so that this
 * file (and its CPU check) runs on any x86-64 CPU. */
extern const struct cwi_impl test_ladder64;
#define ladder64 test_ladder64

static void fill(unsigned char *p, size_t n, unsigned seed)
{
    for (size_t i = 0; i < n; i++)
        p[i] = (unsigned char)(i * 131u + seed * 7u + 1u);
}

/* dst sits `dgap` bytes before the end of its mapping, src `sgap` bytes
 * before the end of its own; every byte of the destination mapping is
 * checked: the copy, and the untouched rest. */
static void check(const char *what, cwi_copy_fn fn, struct pp_buf *sb, struct pp_buf *db,
                  struct pp_buf *ref, size_t n, size_t sgap, size_t dgap)
{
    unsigned char *s = sb->data + sb->len - n - sgap;
    unsigned char *d = db->data + db->len - n - dgap;
    size_t span = n + dgap + 128 < db->len ? n + dgap + 128 : db->len;
    unsigned char *lo = db->data + db->len - span;
    fill(s, n, (unsigned)n);
    for (size_t i = 0; i < span; i++)
        lo[i] = ref->data[i] = (unsigned char)(0xA5 ^ i);
    unsigned char *rd = ref->data + (d - lo);
    for (size_t i = 0; i < n; i++)
        rd[i] = s[i];
    fn(d, s, n);
    __asm__ volatile("sfence" ::: "memory");
    for (size_t i = 0; i < span; i++) {
        if (lo[i] != ref->data[i]) {
            cwt_fail("%s n=%zu src_gap=%zu dst_gap=%zu: byte %td wrong", what, n, sgap, dgap,
                     (lo + i) - d);
            return;
        }
    }
}

static void check_move(struct pp_buf *b, struct pp_buf *ref, size_t n, size_t dist, int up)
{
    size_t total = n + dist;
    unsigned char *base = b->data + b->len - total;
    fill(base, total, (unsigned)(n + dist));
    for (size_t i = 0; i < total; i++)
        ref->data[i] = base[i];
    unsigned char *src = up ? base : base + dist, *dst = up ? base + dist : base;
    unsigned char *rsrc = up ? ref->data : ref->data + dist,
                  *rdst = up ? ref->data + dist : ref->data;
    for (size_t i = n; i-- > 0;) /* reference memmove, overlap either way */
        if (up)
            rdst[i] = rsrc[i];
    if (!up)
        for (size_t i = 0; i < n; i++)
            rdst[i] = rsrc[i];
    ladder64.move(dst, src, n);
    for (size_t i = 0; i < total; i++)
        if (base[i] != ref->data[i]) {
            cwt_fail("move n=%zu dist=%zu %s: byte %zu wrong", n, dist, up ? "up" : "down", i);
            return;
        }
}

int main(void)
{
    const struct cw_info *info = cw_get_info(); /* selects the flush instruction */
    if (!info->avx2) {
        printf("SKIP: no AVX2 on this CPU\n");
        return CWT_SKIP;
    }
    const struct {
        const char *name;
        cwi_copy_fn fn;
        size_t min, max; /* the sizes its contract admits */
    } k[] = {
        {"copy", ladder64.copy, 0, SIZE_MAX},
        {"copy_nt", ladder64.copy_nt, 0, SIZE_MAX},
        {"copy_nt_srcnta", ladder64.copy_nt_srcnta, 0, SIZE_MAX},
        {"copy_srcnta", ladder64.copy_srcnta, 0, SIZE_MAX},
        {"flushcache", ladder64.flushcache, 0, SIZE_MAX},
        {"move", (cwi_copy_fn)ladder64.move, 0, SIZE_MAX},
        {"memcpy_small", ladder64.memcpy_small, 0, CWI_MEMCPY_SMALL},
        {"memcpy_small_flat", ladder64.memcpy_small_flat, 0, CWI_MEMCPY_SMALL},
        {"memcpy_large", ladder64.memcpy_large, CWI_MEMCPY_SMALL + 1, SIZE_MAX},
    };
    const size_t max = (size_t)1 << 20;
    struct pp_buf sb, db, ref;
    if (pp_alloc(&sb, max + 256) || pp_alloc(&db, max + 256) || pp_alloc(&ref, max + 512)) {
        perror("mmap");
        return 1;
    }
    static const size_t gaps[] = {0, 1, 7, 31, 32, 33, 63};
    unsigned long cases = 0;
    for (size_t f = 0; f < sizeof k / sizeof k[0]; f++) {
        for (size_t n = k[f].min; n <= 1100 && n <= k[f].max; n++)
            for (size_t a = 0; a < 7; a++)
                for (size_t b = 0; b < 7; b += (n > 600 ? 3 : 1), cases++)
                    check(k[f].name, k[f].fn, &sb, &db, &ref, n, gaps[a], gaps[b]);
        for (size_t p = 2048; p <= max && p <= k[f].max; p *= 2)
            for (size_t a = 0; a < 7; a += 2)
                for (long d = -1; d <= 1; d++, cases++)
                    check(k[f].name, k[f].fn, &sb, &db, &ref, p + (size_t)d, gaps[a],
                          gaps[(a + 3) % 7]);
    }
    for (size_t n = 0; n <= 700; n += (n < 300 ? 1 : 37))
        for (size_t dist = 0; dist <= 300; dist += (dist < 70 ? 1 : 23))
            for (int up = 0; up <= 1; up++, cases++)
                check_move(&db, &ref, n, dist, up);
    for (int up = 0; up <= 1; up++, cases++)
        check_move(&db, &ref, (size_t)200000, 4096 + 17, up);
    printf("ladder64: %lu cases, %ld failures\n", cases, cwt_failures);
    return cwt_failures != 0;
}
