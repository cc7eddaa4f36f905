/* SPDX-License-Identifier: MIT */
/* What the library detected and chose on this CPU, for the x86 CPU matrix
 * (tests/cpu_matrix.sh, which runs it under qemu-x86_64 -cpu MODEL and
 * compares the lines with its table), and the checks that need no table:
 *
 *   - the vector features cw_get_info() reports agree with CPUID and XGETBV
 *     read here (a vector ISA counts only when the OS enabled its state);
 *   - cw_impl_list() holds exactly the implementations whose features the
 *     CPU has (test_util.h's contract);
 *   - every entry point copies, moves, fills and writes back correctly with
 *     the implementation in force, then with each runnable implementation
 *     selected by cw_impl_select(); each one that cannot run is refused
 *     with ENOTSUP and leaves the active one alone, and an unknown name gets
 *     ENOENT. An instruction the CPU lacks would end this with SIGILL.
 *
 * Output: "key=value" lines (the state at start-up, before any selection),
 * then one line per check, then "cpu_matrix_probe: all checks passed" and
 * exit 0, or FAIL lines and exit 1. */
#include <stdint.h>
#include <sys/mman.h>

#if defined(__x86_64__)
#include <cpuid.h>
#endif

#include "test_util.h"

#define MARGIN 64
#define MAX_N (((size_t)1 << 20) + 5)

static unsigned char *g_src, *g_dst, *g_exp;

static void print_info(void)
{
    const struct cw_info *in = cw_get_info();
    printf("vendor=%s\nfamily=%#x\nmodel=%#x\ncpu_model=%s\n", in->cpu_vendor, in->cpu_family,
           in->cpu_model_number, in->cpu_model);
    printf("profile=%s\ntuning=%s\ntuning_source=%s\n", in->profile, in->tuning,
           in->tuning_source);
    printf("impl=%s\nimpl_source=%s\nmemcpy_entry=%s\n", in->impl, in->impl_source,
           in->memcpy_entry);
    printf("impls=");
    for (const char *const *l = cw_impl_list(); *l != NULL; l++)
        printf("%s%s", l == cw_impl_list() ? "" : ",", *l);
    printf("\nl1d=%zu\nl2=%zu\nl3=%zu\nline=%zu\nnt_threshold=%zu\nnt_threshold_source=%s\n",
           in->l1d_size, in->l2_size, in->l3_size, in->cache_line, in->nt_threshold,
           in->nt_threshold_source);
    printf("l3_policy_size=%zu\nl3_policy_note=%s\n", in->l3_policy_size,
           in->l3_policy_note ? in->l3_policy_note : "");
    printf("stepping=%u\nsignature=%s\n", in->cpu_stepping,
           in->cpu_signature ? in->cpu_signature : "");
    printf("flush_insn=%s\n", in->flush_insn);
    printf("sse2=%d\navx2=%d\navx512f=%d\navx512bw=%d\navx512vl=%d\nerms=%d\nfsrm=%d\n"
           "clflush=%d\nclflushopt=%d\nclwb=%d\n",
           in->sse2, in->avx2, in->avx512f, in->avx512bw, in->avx512vl, in->erms, in->fsrm,
           in->clflush, in->clflushopt, in->clwb);
    printf("n_errors=%d\n", in->n_errors);
    for (int i = 0; i < in->n_errors && i < CW_INFO_MAX_ERRORS; i++)
        printf("error=%s\n", in->errors[i]);
}

/* The vector features straight from CPUID and XGETBV: what the library
 * must have concluded (src/x86/cpu.c's rules, restated independently). */
static void check_features(void)
{
#if defined(__x86_64__)
    const struct cw_info *in = cw_get_info();
    unsigned a, b, c, d, max_leaf;
    __cpuid_count(0, 0, max_leaf, b, c, d);
    __cpuid_count(1, 0, a, b, c, d);
    int osxsave = (c >> 27) & 1, avx = (c >> 28) & 1;
    uint64_t xcr0 = 0;
    if (osxsave) {
        uint32_t lo, hi;
        __asm__ volatile("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
        xcr0 = (uint64_t)hi << 32 | lo;
    }
    int avx2 = 0, f = 0, bw = 0, vl = 0;
    if (max_leaf >= 7) {
        __cpuid_count(7, 0, a, b, c, d);
        avx2 = (b >> 5) & 1;
        f = (b >> 16) & 1;
        bw = (b >> 30) & 1;
        vl = (b >> 31) & 1;
    }
    int ymm = avx && (xcr0 & 0x6) == 0x6, zmm = ymm && (xcr0 & 0xe0) == 0xe0;
    printf("cpuid_max_leaf=%#x\ncpuid_avx=%d\ncpuid_avx2=%d\ncpuid_avx512f=%d\nxcr0=%#llx\n",
           max_leaf, avx, avx2, f, (unsigned long long)xcr0);
    CWT_CHECK(in->avx2 == (avx2 && ymm), "avx2 reported %d: CPUID %d, AVX state %d", in->avx2,
              avx2, ymm);
    CWT_CHECK(in->avx512f == (f && zmm), "avx512f reported %d: CPUID %d, ZMM state %d",
              in->avx512f, f, zmm);
    CWT_CHECK(in->avx512bw == (bw && zmm), "avx512bw reported %d: CPUID %d, ZMM state %d",
              in->avx512bw, bw, zmm);
    CWT_CHECK(in->avx512vl == (vl && zmm), "avx512vl reported %d: CPUID %d, ZMM state %d",
              in->avx512vl, vl, zmm);
#endif
}

static void check_list(void)
{
    const struct cw_info *in = cw_get_info();
    for (size_t k = 0; cwt_known_impls[k] != NULL; k++) {
        const char *name = cwt_known_impls[k];
        CWT_CHECK(cwt_in_list(name) == cwt_cpu_can_run(name, in),
                  "%s: in cw_impl_list() %d, but the CPU's features say %d", name,
                  cwt_in_list(name), cwt_cpu_can_run(name, in));
    }
    CWT_CHECK(cw_impl_list()[0] != NULL, "cw_impl_list() is empty");
    /* the line size steps every write-back loop */
    CWT_CHECK(in->cache_line >= 16 && (in->cache_line & (in->cache_line - 1)) == 0,
              "cache line %zu", in->cache_line);
}

static unsigned char pat(size_t i, unsigned seed)
{
    return (unsigned char)((i * 131 + seed * 7) % 251 + 1);
}

static void fill(size_t n, unsigned seed)
{
    for (size_t i = 0; i < n + 2 * MARGIN; i++)
        g_src[i] = pat(i, seed);
    memset(g_dst, 0xEE, n + 2 * MARGIN);
    memset(g_exp, 0xEE, n + 2 * MARGIN);
}

static int same(size_t n)
{
    return memcmp(g_dst, g_exp, n + 2 * MARGIN) == 0;
}

enum { F_MEMCPY, F_NT, F_FLUSHCACHE, F_PERSIST, F_SAFE, F_SAFE_ZT, F_COPY_DNR, F_COPY_DR,
       F_COPY_SNR, F_COPY_P, F_COPY_SNR_DNR, N_COPY_FUNCS };
static const char *const copy_names[] = {
    "cw_memcpy", "cw_memcpy_nt", "cw_memcpy_flushcache_fn", "cw_memcpy_persist",
    "cw_copy_safe", "cw_copy_safe(ZERO_TAIL)", "cw_copy(DST_NOREUSE)", "cw_copy(DST_REUSE)",
    "cw_copy(SRC_NOREUSE)", "cw_copy(PERSIST)", "cw_copy(SRC_NOREUSE|DST_NOREUSE)",
};

static void copy_one(int f, unsigned char *d, const unsigned char *s, size_t n)
{
    switch (f) {
    case F_MEMCPY: cw_memcpy(d, s, n); break;
    case F_NT: cw_memcpy_nt(d, s, n); break;
    case F_FLUSHCACHE: cw_memcpy_flushcache_fn(d, s, n); cw_drain(); break;
    case F_PERSIST: cw_memcpy_persist(d, s, n); break;
    case F_SAFE: CWT_CHECK(cw_copy_safe(d, s, n, 0) == 0, "cw_copy_safe n=%zu faulted", n); break;
    case F_SAFE_ZT:
        CWT_CHECK(cw_copy_safe(d, s, n, CW_ZERO_TAIL) == 0, "cw_copy_safe n=%zu faulted", n);
        break;
    case F_COPY_DNR: cw_copy(d, s, n, CW_DST_NOREUSE); break;
    case F_COPY_DR: cw_copy(d, s, n, CW_DST_REUSE); break;
    case F_COPY_SNR: cw_copy(d, s, n, CW_SRC_NOREUSE); break;
    case F_COPY_P: cw_copy(d, s, n, CW_PERSIST); break;
    default: cw_copy(d, s, n, CW_SRC_NOREUSE | CW_DST_NOREUSE); break;
    }
}

/* Every entry point at sizes through each kernel's size classes, misaligned
 * both ways, with 64 guard bytes on either side of the destination. */
static void exercise(void)
{
    static const size_t big[] = {255, 256, 257, 1000, 4096 + 7, 20 * 1024 + 9, 65536 + 3,
                                 300 * 1024 + 1, MAX_N - 2 * MARGIN};
    size_t sizes[200 + sizeof big / sizeof big[0]], ns = 0;
    for (size_t n = 0; n <= 200; n += n < 140 ? 1 : 20)
        sizes[ns++] = n;
    for (size_t i = 0; i < sizeof big / sizeof big[0]; i++)
        sizes[ns++] = big[i];
    const char *impl = cw_impl_name();
    long before = cwt_failures;
    unsigned seed = 1;

    for (size_t si = 0; si < ns; si++) {
        size_t n = sizes[si];
        for (int f = 0; f < N_COPY_FUNCS; f++) {
            fill(n, seed++);
            memcpy(g_exp + MARGIN, g_src + MARGIN + 1, n);
            copy_one(f, g_dst + MARGIN, g_src + MARGIN + 1, n);
            CWT_CHECK(same(n), "%s: %s n=%zu wrong", impl, copy_names[f], n);
        }
        /* overlapping moves, both directions, and a disjoint one */
        static const long dist[] = {-33, -1, 1, 7, 64};
        for (size_t k = 0; k < sizeof dist / sizeof dist[0]; k++) {
            fill(n, seed++);
            memcpy(g_dst, g_src, n + 2 * MARGIN);
            memcpy(g_exp, g_src, n + 2 * MARGIN);
            long at = MARGIN / 2 + (dist[k] < 0 ? -dist[k] : 0);
            memmove(g_exp + at + dist[k], g_exp + at, n > MARGIN ? n - MARGIN : n);
            cw_memmove(g_dst + at + dist[k], g_dst + at, n > MARGIN ? n - MARGIN : n);
            CWT_CHECK(same(n), "%s: cw_memmove n=%zu distance %ld wrong", impl, n, dist[k]);
        }
        /* fills */
        for (int f = 0; f < 3; f++) {
            fill(n, seed++);
            memset(g_exp + MARGIN + 3, 0x5A, n);
            if (f == 0) {
                cw_memset_nt(g_dst + MARGIN + 3, 0x5A, n);
            } else if (f == 1) {
                cw_memset_flushcache(g_dst + MARGIN + 3, 0x5A, n);
                cw_drain();
            } else {
                cw_memset_persist(g_dst + MARGIN + 3, 0x5A, n);
            }
            CWT_CHECK(same(n), "%s: %s n=%zu wrong", impl,
                      f == 0 ? "cw_memset_nt" : f == 1 ? "cw_memset_flushcache"
                                                       : "cw_memset_persist", n);
        }
        /* write-backs keep the bytes */
        fill(n, seed++);
        memcpy(g_exp, g_dst, n + 2 * MARGIN);
        cw_flush(g_dst + MARGIN + 5, n);
        cw_persist(g_dst + MARGIN + 5, n);
        CWT_CHECK(same(n), "%s: cw_flush/cw_persist n=%zu changed bytes", impl, n);
    }
    printf("exercise %s: %s\n", impl, cwt_failures == before ? "ok" : "FAILED");
}

/* cw_impl_select over every name the library knows here: the runnable ones
 * are taken (source "api") and exercised, the others refused. */
static void select_all(void)
{
    const struct cw_info *in = cw_get_info();
    const char *start = cw_impl_name();
    for (size_t k = 0; cwt_known_impls[k] != NULL; k++) {
        const char *name = cwt_known_impls[k], *was = cw_impl_name();
        errno = 0;
        int r = cw_impl_select(name);
        int err = errno;
        if (cwt_in_list(name)) {
            CWT_CHECK(r == 0, "cw_impl_select(\"%s\"): %d (errno %d), want 0", name, r, err);
            CWT_CHECK(strcmp(cw_impl_name(), name) == 0 && strcmp(in->impl, name) == 0 &&
                          strcmp(in->impl_source, "api") == 0,
                      "after cw_impl_select(\"%s\"): impl %s (%s), cw_get_info() %s", name,
                      cw_impl_name(), in->impl_source, in->impl);
            printf("select %s: taken\n", name);
            exercise();
        } else {
            CWT_CHECK(r == -1 && err == ENOTSUP,
                      "cw_impl_select(\"%s\") on a CPU that cannot run it: %d (errno %d), "
                      "want -1 with ENOTSUP", name, r, err);
            CWT_CHECK(strcmp(cw_impl_name(), was) == 0 && strcmp(in->impl, was) == 0,
                      "refused cw_impl_select(\"%s\") changed the implementation to %s", name,
                      cw_impl_name());
            printf("select %s: refused (ENOTSUP)\n", name);
        }
    }
    errno = 0;
    CWT_CHECK(cw_impl_select("nonesuch") == -1 && errno == ENOENT,
              "cw_impl_select(\"nonesuch\"): want -1 with ENOENT, errno %d", errno);
    CWT_CHECK(cw_impl_select(start) == 0, "cw_impl_select(\"%s\") back: failed", start);
}

static unsigned char *map(size_t n)
{
    void *p = mmap(NULL, n, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) {
        perror("cpu_matrix_probe: mmap");
        exit(2);
    }
    return p;
}

int main(int argc, char **argv)
{
    (void)argv;
    if (argc != 1) {
        fprintf(stderr, "usage: cpu_matrix_probe (no arguments; CACHEWISE_* as usual)\n");
        return 2;
    }
    setvbuf(stdout, NULL, _IOLBF, 0);
    print_info();
    check_features();
    check_list();
    size_t cap = MAX_N + 2 * MARGIN + 64;
    g_src = map(cap);
    g_dst = map(cap);
    g_exp = map(cap);
    exercise();
    select_all();
    return cwt_finish("cpu_matrix_probe");
}
