/* SPDX-License-Identifier: MIT */
/* cw_copy_safe with a source or destination outside the user address
 * space, with the implementation named by argv[1] (forced by CTest through
 * CACHEWISE_IMPL). Registered in every build, the sanitizer builds
 * included: there a sanitizer's own shadow check of such an address would
 * fault outside the copy's buffers, so the library must run what touches
 * the buffers without instrumentation (src/safe_internal.h).
 *
 * x86-64: the first address past the user half (non-canonical with 4-level
 * paging, an unmapped user address with 5-level paging), one deep in the
 * non-canonical hole whose copies cross 2^63, the first kernel-half
 * address, each as source and as destination, and copies that run off the
 * last page a process can map. Each with several sizes and flags: the
 * return value, the copied prefix, CW_ZERO_TAIL's zeroes after a source
 * fault and nothing else of the good buffer written, errno untouched. */
#include "safe_util.h"

#if defined(__x86_64__)

static size_t P;

/* a good buffer: CANARY everywhere, or the source pattern */
#define BUF_BYTES (80 * 1024)
static unsigned char *good_dst, *good_src;

static const size_t sizes[] = {1, 7, 16, 33, 64, 100, 255, 4096, 5000, 70000};
#define N_SIZES (sizeof sizes / sizeof sizes[0])
static const unsigned flag_set[] = {
    0,
    CW_ZERO_TAIL,
    CW_DST_REUSE,
    CW_DST_NOREUSE | CW_ZERO_TAIL,
    CW_SRC_NOREUSE,
    CW_PERSIST | CW_ZERO_TAIL,
};
#define N_FLAGS (sizeof flag_set / sizeof flag_set[0])

/* good_dst[from, BUF_BYTES) still all CANARY, from on: the index of the
 * first byte that is not, or BUF_BYTES */
static size_t first_written(size_t from)
{
    for (size_t i = from; i < BUF_BYTES; i++)
        if (good_dst[i] != CANARY)
            return i;
    return BUF_BYTES;
}

/* A source that cannot be read at all: nothing copied, the destination
 * zeroed with CW_ZERO_TAIL and untouched without it. */
static void bad_source(uintptr_t a, const char *what)
{
    for (size_t si = 0; si < N_SIZES; si++) {
        for (size_t fi = 0; fi < N_FLAGS; fi++) {
            size_t n = sizes[si];
            unsigned flags = flag_set[fi];
            memset(good_dst, CANARY, BUF_BYTES);
            errno = 4321;
            size_t ret = cw_copy_safe(good_dst, (const void *)a, n, flags);
            int err = errno;
            CWT_CHECK(ret == n, "%s source %#lx, n=%zu flags=%#x: returned %zu", what,
                      (unsigned long)a, n, flags, ret);
            CWT_CHECK(err == 4321, "%s source, n=%zu flags=%#x: errno %d", what, n, flags, err);
            size_t from = 0;
            if (flags & CW_ZERO_TAIL) {
                for (; from < n && good_dst[from] == 0; from++)
                    ;
                CWT_CHECK(from == n, "%s source, n=%zu flags=%#x: byte %zu not zeroed", what, n,
                          flags, from);
                from = n;
            }
            size_t w = first_written(from);
            CWT_CHECK(w == BUF_BYTES, "%s source, n=%zu flags=%#x: destination byte %zu written",
                      what, n, flags, w);
        }
    }
}

/* A destination that cannot be written at all: nothing copied. */
static void bad_destination(uintptr_t a, const char *what)
{
    for (size_t si = 0; si < N_SIZES; si++) {
        for (size_t fi = 0; fi < N_FLAGS; fi++) {
            size_t n = sizes[si];
            unsigned flags = flag_set[fi];
            errno = 4321;
            size_t ret = cw_copy_safe((void *)a, good_src, n, flags);
            int err = errno;
            CWT_CHECK(ret == n, "%s destination %#lx, n=%zu flags=%#x: returned %zu", what,
                      (unsigned long)a, n, flags, ret);
            CWT_CHECK(err == 4321, "%s destination, n=%zu flags=%#x: errno %d", what, n, flags,
                      err);
        }
    }
}

/* Both sides bad: nothing copied either way. */
static void both_bad(uintptr_t a, uintptr_t b)
{
    for (size_t si = 0; si < N_SIZES; si++) {
        size_t n = sizes[si];
        size_t ret = cw_copy_safe((void *)a, (const void *)b, n, CW_ZERO_TAIL);
        CWT_CHECK(ret == n, "destination %#lx, source %#lx, n=%zu: returned %zu",
                  (unsigned long)a, (unsigned long)b, n, ret);
    }
}

/* The last page a process can map with 4-level paging ends where the
 * non-canonical hole begins (TASK_SIZE, one page short of 2^47): copies
 * that start k bytes below that end and run past it. With 5-level paging
 * the page above is merely unmapped; the results are the same. */
static void last_page(void)
{
    const uintptr_t top = (uintptr_t)0x00007ffffffff000ull;
    void *want = (void *)(top - P);
    void *p = mmap(want, P, PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);
    if (p == MAP_FAILED || p != want) {
        /* something else lives there (or the kernel ignores the hint):
         * say so, the other cases stand */
        printf("last page: %p not mappable here (%s), cases skipped\n", want,
               p == MAP_FAILED ? strerror(errno) : "mapped elsewhere");
        if (p != MAP_FAILED)
            munmap(p, P);
        return;
    }
    unsigned char *page = p;
    const size_t ks[] = {1, 7, 64, 100, 255, P / 2 + 3, P};
    const size_t extra[] = {1, 9, 64, 200, 4096, 70000 - 4096};
    unsigned rot = 0, cases = 0;
    for (size_t ki = 0; ki < sizeof ks / sizeof ks[0]; ki++) {
        size_t k = ks[ki];
        for (size_t ei = 0; ei < sizeof extra / sizeof extra[0]; ei++) {
            size_t n = k + extra[ei];
            unsigned flags = flag_set[rot++ % N_FLAGS];
            cases += 2;

            /* the source runs off the page */
            for (size_t i = 0; i < P; i++)
                page[i] = pattern(i, 3);
            memset(good_dst, CANARY, BUF_BYTES);
            errno = 4321;
            size_t ret = cw_copy_safe(good_dst, page + P - k, n, flags);
            CWT_CHECK(ret == n - k && errno == 4321,
                      "last page source, k=%zu n=%zu flags=%#x: "
                      "returned %zu (expected %zu), errno %d",
                      k, n, flags, ret, n - k, errno);
            CWT_CHECK(memcmp(good_dst, page + P - k, k) == 0,
                      "last page source, k=%zu n=%zu flags=%#x: prefix wrong", k, n, flags);
            size_t from = k;
            if (flags & CW_ZERO_TAIL) {
                for (; from < n && good_dst[from] == 0; from++)
                    ;
                CWT_CHECK(from == n,
                          "last page source, k=%zu n=%zu flags=%#x: byte %zu not zeroed", k, n,
                          flags, from);
            }
            size_t w = first_written(from);
            CWT_CHECK(w == BUF_BYTES, "last page source, k=%zu n=%zu flags=%#x: byte %zu written",
                      k, n, flags, w);

            /* the destination runs off the page */
            memset(page, CANARY, P);
            errno = 4321;
            ret = cw_copy_safe(page + P - k, good_src, n, flags);
            CWT_CHECK(ret == n - k && errno == 4321,
                      "last page destination, k=%zu n=%zu "
                      "flags=%#x: returned %zu (expected %zu), errno %d",
                      k, n, flags, ret, n - k, errno);
            CWT_CHECK(memcmp(page + P - k, good_src, k) == 0,
                      "last page destination, k=%zu n=%zu flags=%#x: prefix wrong", k, n, flags);
            size_t below = 0;
            while (below < P - k && page[below] == CANARY)
                below++;
            CWT_CHECK(below == P - k,
                      "last page destination, k=%zu n=%zu flags=%#x: byte %zu "
                      "below the destination written",
                      k, n, flags, below);
        }
    }
    /* a copy that ends exactly at the last byte is whole */
    memset(page, CANARY, P);
    CWT_CHECK(cw_copy_safe(page, good_src, P, 0) == 0 && memcmp(page, good_src, P) == 0,
              "a copy filling the last page");
    CWT_CHECK(cw_copy_safe(good_dst, page + P - 64, 64, 0) == 0, "a copy of the last 64 bytes");
    munmap(page, P);
    printf("last page: %u cases\n", cases);
}

int main(int argc, char **argv)
{
    P = page_size();
    int rc = safe_test_start(argc, argv);
    if (rc != 0)
        return rc;
    good_dst = map_pages(BUF_BYTES / P + 1);
    good_src = map_pages(BUF_BYTES / P + 1);
    for (size_t i = 0; i < BUF_BYTES; i++)
        good_src[i] = pattern(i, 1);

    static const struct {
        uintptr_t a;
        const char *what;
    } addrs[] = {
        {(uintptr_t)0x0000800000000000ull, "past the user half"},
        {(uintptr_t)0x8000000000000000ull - 64, "non-canonical"},
        {(uintptr_t)0xffff800000000000ull, "kernel-half"},
    };
    for (size_t i = 0; i < sizeof addrs / sizeof addrs[0]; i++) {
        bad_source(addrs[i].a, addrs[i].what);
        bad_destination(addrs[i].a, addrs[i].what);
        both_bad(addrs[i].a, addrs[(i + 1) % 3].a);
    }
    printf("bad addresses: %zu cases\n", 3 * N_SIZES * (2 * N_FLAGS + 1));
    last_page();
    return cwt_finish("safe_addresses");
}

#else

int main(void)
{
    printf("SKIP: the addresses tested are x86-64's (canonical hole, kernel half)\n");
    return CWT_SKIP;
}

#endif
