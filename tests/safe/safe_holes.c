/* SPDX-License-Identifier: MIT */
/* What cw_copy_safe leaves after a fault, with the implementation named by
 * argv[1] (forced by CTest through CACHEWISE_IMPL): no byte of the
 * destination at or beyond offset n - ret is written (docs/SAFE.md), as
 * after the kernel's copy_to_user, whichever buffer faulted; CW_ZERO_TAIL
 * then zeroes that tail after a source fault, and only as far as the
 * destination is writable.
 *
 * One buffer runs into a PROT_NONE page k bytes from its start: either it
 * ends there ("a buffer followed by a PROT_NONE page") or it goes on into
 * writable (readable) memory beyond, and past a second PROT_NONE page two
 * pages further. k and the bytes past the first hole around the vector
 * widths and the size classes of the kernels, dst - src modulo the page both
 * where the x86 temporal copy walks backward (less than 256) and where it
 * does not, every flag set in turn. Every byte after the hole is checked:
 * canary (or zero after a source fault with CW_ZERO_TAIL). */
#include "safe_util.h"

static size_t P;

/* [A: 5 pages][hole][B1: 2 pages][hole][B2: 8 pages] */
#define A_PAGES 5
#define REGION_PAGES 17
#define HOLE1 (A_PAGES * P)
#define HOLE2 ((A_PAGES + 3) * P)
static unsigned char *region, *other;
static size_t other_bytes;

static int in_hole(size_t i)
{
    return (i >= HOLE1 && i < HOLE1 + P) || (i >= HOLE2 && i < HOLE2 + P);
}

/* every accessible byte of the region set to c, or to the source pattern */
static void region_fill(int c)
{
    for (size_t i = 0; i < REGION_PAGES * P; i += P)
        if (!in_hole(i)) {
            if (c >= 0)
                memset(region + i, c, P);
            else
                for (size_t j = i; j < i + P; j++)
                    region[j] = pattern(j, 5);
        }
}

static const unsigned flag_set[] = {
    0,
    CW_ZERO_TAIL,
    CW_DST_REUSE,
    CW_DST_NOREUSE,
    CW_SRC_NOREUSE | CW_ZERO_TAIL,
    CW_PERSIST,
    CW_DST_REUSE | CW_ZERO_TAIL,
};
#define N_FLAGS (sizeof flag_set / sizeof flag_set[0])
/* dst - src modulo the page: below 256 the x86 temporal copy runs backward */
static const size_t deltas[] = {0, 8, 65, 255, 300, 2048};
#define N_DELTAS (sizeof deltas / sizeof deltas[0])

static unsigned g_case;

/* the other buffer's offset, so that dst - src == delta modulo the page */
static size_t other_offset(size_t hole_side_off, size_t delta, int hole_is_dst)
{
    size_t po = hole_side_off & (P - 1);
    return hole_is_dst ? (po + P - delta) & (P - 1) : (po + delta) & (P - 1);
}

/* The destination runs into the hole k bytes from its start. */
static void dst_case(size_t k, size_t n, size_t delta)
{
    unsigned flags = flag_set[g_case++ % N_FLAGS];
    unsigned char *dst = region + HOLE1 - k;
    const unsigned char *src = other + other_offset(HOLE1 - k, delta, 1);
    region_fill(CANARY);

    errno = 4321;
    size_t ret = cw_copy_safe(dst, src, n, flags);
    int err = errno;
    char what[160];
    snprintf(what, sizeof what, "destination hole at %zu, n=%zu, dst-src=%zu mod page, flags=%#x",
             k, n, delta, flags);
    CWT_CHECK(ret == n - k, "%s: returned %zu, expected %zu", what, ret, n - k);
    CWT_CHECK(err == 4321, "%s: errno %d", what, err);
    CWT_CHECK(memcmp(dst, src, k) == 0, "%s: prefix wrong", what);
    /* before the destination, and everything after the first hole */
    size_t bad = 0, first = 0;
    for (size_t i = 0; i < REGION_PAGES * P; i++) {
        if (in_hole(i) || (i >= HOLE1 - k && i < HOLE1))
            continue;
        if (region[i] != CANARY && bad++ == 0)
            first = i;
    }
    CWT_CHECK(bad == 0,
              "%s: %zu bytes written outside the copied prefix, first at offset %ld of "
              "the destination",
              what, bad, (long)first - (long)(HOLE1 - k));
}

/* The source runs into the hole k bytes from its start. */
static void src_case(size_t k, size_t n, size_t delta)
{
    unsigned flags = flag_set[g_case++ % N_FLAGS];
    const unsigned char *src = region + HOLE1 - k;
    size_t doff = other_offset(HOLE1 - k, delta, 0);
    unsigned char *dst = other + doff;
    memset(other, CANARY, other_bytes);

    errno = 4321;
    size_t ret = cw_copy_safe(dst, src, n, flags);
    int err = errno;
    char what[160];
    snprintf(what, sizeof what, "source hole at %zu, n=%zu, dst-src=%zu mod page, flags=%#x", k,
             n, delta, flags);
    CWT_CHECK(ret == n - k, "%s: returned %zu, expected %zu", what, ret, n - k);
    CWT_CHECK(err == 4321, "%s: errno %d", what, err);
    CWT_CHECK(memcmp(dst, src, k) == 0, "%s: prefix wrong", what);
    unsigned char tail = flags & CW_ZERO_TAIL ? 0 : CANARY;
    size_t bad = 0, first = 0;
    for (size_t i = 0; i < other_bytes; i++) {
        if (i >= doff && i < doff + k)
            continue;
        unsigned char want = i >= doff + k && i < doff + n ? tail : CANARY;
        if (other[i] != want && bad++ == 0)
            first = i;
    }
    CWT_CHECK(bad == 0,
              "%s: %zu bytes after the prefix not %s, first at offset %ld of the "
              "destination",
              what, bad, tail == 0 ? "zeroed" : "untouched", (long)first - (long)doff);
}

int main(int argc, char **argv)
{
    P = page_size();
    int rc = safe_test_start(argc, argv);
    if (rc != 0)
        return rc;

    /* k: where the hole starts; within the first line, around the vector
     * widths, the ladder's classes, a page, and far enough for rep movsb
     * (32 KiB and more) once the copy goes past the hole */
    const size_t ks[] = {0,   1,   15,  16,  17,  32,  63,   64,    65, 127,
                         128, 129, 255, 256, 511, 512, 1000, P - 1, P,  2 * P + 64};
    /* copies that end in the hole: bytes of it the copy covers */
    const size_t in_hole_t[] = {1, 16, 33, 64, 65, 200, P};
    /* copies that go on past it: bytes after the first hole (2 pages of
     * writable memory, then the second hole, then 8 pages) */
    const size_t past_t[] = {1,   15,  16,  17,  31,  32,  33,  63,  64,   65, 127,
                             128, 129, 255, 256, 257, 511, 512, 513, 1024, P,  7 * P + 5};
    size_t max_n = 2 * P + 64 + P + 7 * P + 5;

    region = map_pages(REGION_PAGES);
    if (mprotect(region + HOLE1, P, PROT_NONE) != 0 ||
        mprotect(region + HOLE2, P, PROT_NONE) != 0)
        die("mprotect");
    other_bytes = (max_n / P + 2) * P;
    other = map_pages(other_bytes / P);

    unsigned cases = 0;
    /* the destination side: the other buffer is the source */
    for (size_t i = 0; i < other_bytes; i++)
        other[i] = pattern(i, 9);
    for (size_t ki = 0; ki < sizeof ks / sizeof ks[0]; ki++) {
        for (size_t di = 0; di < N_DELTAS; di++) {
            for (size_t ti = 0; ti < sizeof in_hole_t / sizeof in_hole_t[0]; ti++, cases++)
                dst_case(ks[ki], ks[ki] + in_hole_t[ti], deltas[di]);
            for (size_t ti = 0; ti < sizeof past_t / sizeof past_t[0]; ti++, cases++)
                dst_case(ks[ki], ks[ki] + P + past_t[ti], deltas[di]);
        }
    }
    /* the source side: the region holds the source */
    region_fill(-1);
    for (size_t ki = 0; ki < sizeof ks / sizeof ks[0]; ki++) {
        for (size_t di = 0; di < N_DELTAS; di++) {
            for (size_t ti = 0; ti < sizeof in_hole_t / sizeof in_hole_t[0]; ti++, cases++)
                src_case(ks[ki], ks[ki] + in_hole_t[ti], deltas[di]);
            for (size_t ti = 0; ti < sizeof past_t / sizeof past_t[0]; ti++, cases++)
                src_case(ks[ki], ks[ki] + P + past_t[ti], deltas[di]);
        }
    }
    printf("holes: %u cases\n", cases);
    munmap(region, REGION_PAGES * P);
    munmap(other, other_bytes);
    return cwt_finish("safe_holes");
}
