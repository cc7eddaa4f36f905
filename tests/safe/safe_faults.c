/* SPDX-License-Identifier: MIT */
/* cw_copy_safe with the implementation named by argv[1] (forced by CTest
 * through CACHEWISE_IMPL): a fault at the first byte, in the middle and on
 * the last page of the source and of the destination, for every size class
 * and several misalignments, by PROT_NONE, munmap, a read-only destination
 * and a truncated shared file mapping (SIGBUS); exact return value, the
 * copied prefix, CW_ZERO_TAIL, and no byte written outside [dst, dst+n).
 * Then random two-sided faults and the argument edge cases. */
#include "safe_util.h"

enum kind { K_NONE, K_PROTNONE, K_UNMAP, K_RDONLY, K_TRUNC, K_COUNT };
static const char *const kind_name[] = {"none", "prot_none", "munmap", "read-only", "truncated"};

/* [guard page][buffer pages][guard page]; the buffer starts at offset
 * page + misalign. One page (K_TRUNC: every page from it on) goes bad. */
struct region {
    unsigned char *base;
    size_t pages;
    int fd;
    int kind;
    size_t bad; /* region page index */
};

static size_t P;

static void region_make(struct region *r, size_t pages, int kind, size_t bad)
{
    r->pages = pages;
    r->kind = kind;
    r->bad = bad;
    r->fd = -1;
    if (kind == K_TRUNC) {
        r->fd = memfd_create("cw_safe_test", MFD_CLOEXEC);
        if (r->fd < 0)
            die("memfd_create");
        if (ftruncate(r->fd, (off_t)(pages * P)) != 0)
            die("ftruncate");
        void *p = mmap(NULL, pages * P, PROT_READ | PROT_WRITE, MAP_SHARED, r->fd, 0);
        if (p == MAP_FAILED)
            die("mmap shared");
        r->base = p;
    } else {
        r->base = map_pages(pages);
    }
}

static void region_break(struct region *r)
{
    unsigned char *page = r->base + r->bad * P;
    switch (r->kind) {
    case K_PROTNONE:
        if (mprotect(page, P, PROT_NONE) != 0)
            die("mprotect");
        break;
    case K_UNMAP:
        if (munmap(page, P) != 0)
            die("munmap");
        break;
    case K_RDONLY:
        if (mprotect(page, P, PROT_READ) != 0)
            die("mprotect");
        break;
    case K_TRUNC:
        /* end of file 100 bytes into the page before: that page stays whole
         * (faults are page-granular), every later page raises SIGBUS */
        if (ftruncate(r->fd, (off_t)((r->bad - 1) * P + 100)) != 0)
            die("ftruncate");
        break;
    default: break;
    }
}

static int region_readable(const struct region *r, size_t page)
{
    switch (r->kind) {
    case K_PROTNONE:
    case K_UNMAP: return page != r->bad;
    case K_TRUNC: return page < r->bad;
    default: return 1;
    }
}

static void region_free(struct region *r)
{
    munmap(r->base, r->pages * P);
    if (r->fd >= 0)
        close(r->fd);
}

/* A buffer of n bytes at misalignment a whose buffer-page j goes bad.
 * Returns the offset of its first inaccessible byte (n if none). */
static size_t setup(struct region *r, size_t n, size_t a, int kind, size_t j)
{
    size_t npg = (a + n + P - 1) / P;
    if (kind == K_NONE)
        j = npg + 1;
    region_make(r, npg + 2, kind, j + 1);
    if (kind == K_NONE || j >= npg)
        return n; /* past the buffer: must not be touched */
    return j == 0 ? 0 : j * P - a;
}

static unsigned g_seed = 1;

struct spec {
    int kind;
    size_t page; /* buffer page that goes bad */
    size_t misalign;
};

static void run_case(size_t n, struct spec s, struct spec d, unsigned flags)
{
    struct region rs, rd;
    size_t ks = setup(&rs, n, s.misalign, s.kind, s.page);
    size_t kd = setup(&rd, n, d.misalign, d.kind, d.page);
    unsigned char *src = rs.base + P + s.misalign;
    unsigned char *dst = rd.base + P + d.misalign;
    unsigned seed = g_seed++;

    for (size_t i = 0; i < rs.pages * P; i++)
        rs.base[i] = pattern(i, seed);
    memset(rd.base, CANARY, rd.pages * P);
    region_break(&rs);
    region_break(&rd);

    /* what the destination region holds before the copy (truncation zeroes
     * the tail of the page holding the new end of file) */
    unsigned char *before = malloc(rd.pages * P);
    if (before == NULL)
        die("malloc");
    for (size_t pg = 0; pg < rd.pages; pg++)
        if (region_readable(&rd, pg))
            memcpy(before + pg * P, rd.base + pg * P, P);

    size_t k = ks < kd ? ks : kd;
    size_t zero_end = (flags & CW_ZERO_TAIL) && ks < kd ? (kd < n ? kd : n) : k;

    errno = 4321;
    size_t ret = cw_copy_safe(dst, src, n, flags);
    int err = errno;

    char what[200];
    snprintf(what, sizeof what, "n=%zu src{%s page %zu +%zu} dst{%s page %zu +%zu} flags=%#x", n,
             kind_name[s.kind], s.page, s.misalign, kind_name[d.kind], d.page, d.misalign, flags);
    CWT_CHECK(ret == n - k, "%s: returned %zu, expected %zu", what, ret, n - k);
    CWT_CHECK(err == 4321, "%s: errno changed to %d", what, err);

    size_t bad = 0, first = 0;
    for (size_t i = 0; i < k; i++)
        if (dst[i] != src[i] && bad++ == 0)
            first = i;
    CWT_CHECK(bad == 0, "%s: %zu prefix bytes wrong, first at %zu", what, bad, first);
    for (size_t i = k; i < zero_end; i++)
        if (dst[i] != 0 && bad++ == 0)
            first = i;
    CWT_CHECK(bad == 0, "%s: %zu tail bytes not zeroed, first at %zu", what, bad, first);

    /* outside [dst, dst+n), and on a read-only page anywhere: untouched */
    size_t lo = P + d.misalign, hi = lo + n;
    for (size_t pg = 0; pg < rd.pages; pg++) {
        if (!region_readable(&rd, pg))
            continue;
        int frozen = rd.kind == K_RDONLY && pg == rd.bad;
        for (size_t i = pg * P; i < (pg + 1) * P; i++)
            if ((frozen || i < lo || i >= hi) && rd.base[i] != before[i] && bad++ == 0)
                first = i;
    }
    CWT_CHECK(bad == 0,
              "%s: %zu bytes written where they must not be, first at region offset %zu", what,
              bad, first);

    free(before);
    region_free(&rs);
    region_free(&rd);
}

static const unsigned flag_set[] = {
    0,
    CW_ZERO_TAIL,
    CW_DST_NOREUSE | CW_ZERO_TAIL,
    CW_DST_REUSE,
    CW_SRC_NOREUSE | CW_ZERO_TAIL,
    CW_PERSIST,
    CW_PERSIST | CW_SRC_NOREUSE | CW_ZERO_TAIL,
    CW_SRC_NOREUSE | CW_DST_REUSE | CW_ZERO_TAIL,
};
#define N_FLAGS (sizeof flag_set / sizeof flag_set[0])

static void every_position(void)
{
    /* small, around one page, beyond 64 KiB (and beyond the streaming
     * threshold when CTest sets CACHEWISE_NT_THRESHOLD=64K) */
    const size_t sizes[] = {1, 7, 64, 200, 4000, 4096, 4097, 8191, 70000, 131085, 300001};
    const size_t misaligns[] = {0, 1, 63, P / 2 + 1, P - 1};
    const int src_kinds[] = {K_PROTNONE, K_UNMAP, K_TRUNC};
    const int dst_kinds[] = {K_PROTNONE, K_UNMAP, K_RDONLY, K_TRUNC};
    const size_t other_align[] = {0, 5, 64 + 3, 2048, 4093 % P};
    unsigned rot = 0;

    for (size_t si = 0; si < sizeof sizes / sizeof sizes[0]; si++) {
        size_t n = sizes[si];
        for (int side = 0; side < 2; side++) {
            size_t nk = side == 0 ? 3 : 4;
            for (size_t ki = 0; ki < nk; ki++) {
                int kind = side == 0 ? src_kinds[ki] : dst_kinds[ki];
                for (size_t ai = 0; ai < sizeof misaligns / sizeof misaligns[0]; ai++) {
                    size_t a = misaligns[ai];
                    size_t npg = (a + n + P - 1) / P;
                    /* first byte, middle, last page, just past the end */
                    size_t pos[4] = {0, npg / 2, npg - 1, npg};
                    for (int pi = 0; pi < 4; pi++) {
                        if (pi > 0 && pos[pi] == pos[pi - 1])
                            continue;
                        struct spec bad = {kind, pos[pi], a};
                        struct spec good = {K_NONE, 0, other_align[rot % 5]};
                        unsigned flags = flag_set[rot % N_FLAGS];
                        rot++;
                        if (side == 0)
                            run_case(n, bad, good, flags);
                        else
                            run_case(n, good, bad, flags);
                    }
                }
            }
        }
    }
    printf("every position: %u cases\n", rot);
}

static uint64_t rng_state = 0x9e3779b97f4a7c15ull;
static uint64_t rnd(uint64_t bound)
{
    return cwt_xorshift64(&rng_state) % bound;
}

/* Faults in both buffers at once: the lower one wins, and CW_ZERO_TAIL
 * zeroes from a source fault up to a later destination fault. */
static void random_two_sided(int count)
{
    for (int c = 0; c < count; c++) {
        size_t n = 1 + (size_t)rnd(rnd(2) ? 3 * P : 80000);
        struct spec s = {(int)rnd(K_COUNT), 0, (size_t)rnd(P)};
        struct spec d = {(int)rnd(K_COUNT), 0, (size_t)rnd(P)};
        if (s.kind == K_RDONLY)
            s.kind = K_NONE; /* a read-only source is not a fault */
        s.page = (size_t)rnd((s.misalign + n + P - 1) / P + 1);
        d.page = (size_t)rnd((d.misalign + n + P - 1) / P + 1);
        run_case(n, s, d, flag_set[rnd(N_FLAGS)]);
    }
    printf("two-sided: %d random cases\n", count);
}

static void edge_cases(void)
{
    unsigned char src[256], dst[256];
    memset(src, 1, sizeof src);

    CWT_CHECK(cw_copy_safe(dst, NULL, 10, 0) == 10, "NULL src");
    CWT_CHECK(cw_copy_safe(NULL, src, 10, CW_ZERO_TAIL) == 10, "NULL dst");
    CWT_CHECK(cw_copy_safe(NULL, NULL, 0, 0) == 0, "n == 0 with NULL");

    const unsigned bad_flags[] = {0x20, 0x80000000u, CW_DST_NOREUSE | CW_DST_REUSE,
                                  CW_PERSIST | CW_DST_REUSE,
                                  CW_ZERO_TAIL | CW_DST_NOREUSE | CW_DST_REUSE};
    for (size_t i = 0; i < sizeof bad_flags / sizeof bad_flags[0]; i++) {
        memset(dst, CANARY, sizeof dst);
        errno = 0;
        size_t r = cw_copy_safe(dst, src, 100, bad_flags[i]);
        CWT_CHECK(r == 100 && errno == EINVAL, "flags %#x: ret %zu errno %d", bad_flags[i], r,
                  errno);
        CWT_CHECK(dst[0] == CANARY && dst[99] == CANARY, "flags %#x: copied anyway",
                  bad_flags[i]);
        errno = 0;
        r = cw_copy_safe(dst, src, 0, bad_flags[i]);
        CWT_CHECK(r == 0 && errno == EINVAL, "flags %#x n=0: ret %zu errno %d", bad_flags[i], r,
                  errno);
    }

    /* kernel half of the address space, and a range wrapping through 0
     * (also under the sanitizers, whose shadow check of such an address
     * would fault outside the copy: what an armed copy runs is built without
     * instrumentation there; safe_addresses.c has more) */
    void *kernel = (void *)(uintptr_t)-8192;
    memset(dst, CANARY, sizeof dst);
    CWT_CHECK(cw_copy_safe(dst, kernel, 100, CW_ZERO_TAIL) == 100, "kernel-space source");
    CWT_CHECK(dst[0] == 0 && dst[99] == 0 && dst[100] == CANARY, "zero tail after kernel source");
    CWT_CHECK(cw_copy_safe(kernel, src, 100, 0) == 100, "kernel-space destination");
    CWT_CHECK(cw_copy_safe(dst, (void *)(uintptr_t)-4096, 8192, 0) == 8192, "wrapping source");

#if defined(__x86_64__)
    /* non-canonical addresses raise a general-protection fault that reports
     * no address (or, with 5-level paging, are just unmapped) */
    void *hole = (void *)(uintptr_t)0x0000800000000000ull;
    CWT_CHECK(cw_copy_safe(dst, hole, 64, 0) == 64, "non-canonical source");
    CWT_CHECK(cw_copy_safe(hole, src, 200, 0) == 200, "non-canonical destination");
    void *deep = (void *)(uintptr_t)0x4000000000000000ull;
    CWT_CHECK(cw_copy_safe(dst, deep, 256, CW_ZERO_TAIL) == 256, "deep non-canonical source");
    CWT_CHECK(dst[0] == 0 && dst[255] == 0, "zero tail after non-canonical source");
#endif

    /* faults are recoverable again and again on the same thread */
    unsigned char *pg = map_pages(2);
    mprotect(pg + P, P, PROT_NONE);
    for (int i = 0; i < 1000; i++) {
        size_t r = cw_copy_safe(dst, pg + P - 10, 100, 0);
        if (r != 90) {
            CWT_CHECK(r == 90, "repeat %d: %zu", i, r);
            break;
        }
    }
    munmap(pg, 2 * P);

    /* no fault: plain copies at every size up to 600 */
    unsigned char *a = malloc(700), *b = malloc(700);
    for (size_t i = 0; i < 700; i++)
        a[i] = pattern(i, 7);
    for (size_t len = 0; len <= 600; len++) {
        memset(b, CANARY, 700);
        size_t r = cw_copy_safe(b + 3, a + 1, len, flag_set[len % N_FLAGS]);
        int ok =
            r == 0 && memcmp(b + 3, a + 1, len) == 0 && b[2] == CANARY && b[3 + len] == CANARY;
        CWT_CHECK(ok, "no-fault copy of %zu bytes", len);
    }
    free(a);
    free(b);
}

int main(int argc, char **argv)
{
    P = page_size();
    int rc = safe_test_start(argc, argv);
    if (rc != 0)
        return rc;
    edge_cases();
    every_position();
    random_two_sided(400);
    return cwt_finish("safe_faults");
}
