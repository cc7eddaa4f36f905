/* SPDX-License-Identifier: MIT */
/* The API around the copies: hint validation (EINVAL, nothing copied),
 * n == 0 never dereferencing, cw_impl_list / cw_impl_select / cw_impl_name,
 * cw_get_info consistency and cw_version. Runs with whatever implementation
 * the library picks; the copies themselves are test_copy's job. */
#include <stdint.h>

#include "protected_pages.h"
#include "test_util.h"

static int valid_hints(unsigned h)
{
    if (h & ~(CW_DST_NOREUSE | CW_DST_REUSE | CW_SRC_NOREUSE | CW_PERSIST))
        return 0;
    if ((h & CW_DST_NOREUSE) && (h & CW_DST_REUSE))
        return 0;
    if ((h & CW_PERSIST) && (h & CW_DST_REUSE))
        return 0;
    return 1;
}

static void fill(unsigned char *p, size_t n, unsigned char v)
{
    for (size_t i = 0; i < n; i++)
        p[i] = (unsigned char)(v + i);
}

static int equal(const unsigned char *a, const unsigned char *b, size_t n)
{
    return memcmp(a, b, n) == 0;
}

static void test_hints(void)
{
    enum { N = 300 };
    static unsigned char src[N], dst[N], orig[N];
    unsigned extra[] = {1u << 5, 1u << 8, 1u << 31, 0xffffffffu, CW_ZERO_TAIL | CW_DST_REUSE};
    int n_valid = 0;
    for (unsigned i = 0; i < 32 + sizeof extra / sizeof extra[0]; i++) {
        unsigned h = i < 32 ? i : extra[i - 32];
        for (int zero = 0; zero < 2; zero++) {
            size_t n = zero ? 0 : N;
            fill(src, N, (unsigned char)(h * 3 + 1));
            fill(dst, N, 0xaa);
            memcpy(orig, dst, N);
            errno = 0;
            void *r = cw_copy(dst, src, n, h);
            if (valid_hints(h)) {
                n_valid += !zero;
                CWT_CHECK(r == dst, "cw_copy(hints 0x%x, n %zu): returned %p, not dst", h, n, r);
                CWT_CHECK(equal(dst, zero ? orig : src, N),
                          "cw_copy(hints 0x%x, n %zu): wrong bytes", h, n);
            } else {
                CWT_CHECK(r == NULL && errno == EINVAL,
                          "cw_copy(invalid hints 0x%x, n %zu): want NULL/EINVAL, got %p/%d", h, n,
                          r, errno);
                CWT_CHECK(equal(dst, orig, N), "cw_copy(invalid hints 0x%x): copied anyway", h);
            }
        }
    }
    /* 0, DN, DR, SN, SN|DN, SN|DR, P, P|DN, P|SN, P|SN|DN */
    CWT_CHECK(n_valid == 10, "%d valid hint combinations, want 10", n_valid);
    CWT_CHECK(cw_copy(dst, src, 10, CW_ZERO_TAIL) == NULL && errno == EINVAL,
              "CW_ZERO_TAIL must be refused by cw_copy");
    CWT_CHECK(cw_copy(dst, src, 10, CW_DST_NOREUSE | CW_DST_REUSE) == NULL && errno == EINVAL,
              "CW_DST_NOREUSE|CW_DST_REUSE must be refused");
    CWT_CHECK(cw_copy(dst, src, 10, CW_PERSIST | CW_DST_REUSE) == NULL && errno == EINVAL,
              "CW_PERSIST|CW_DST_REUSE must be refused");
}

/* Hidden from the optimiser, so that passing it twice to a restrict
 * parameter is not diagnosed: n == 0 is exactly the case where it is fine. */
static unsigned char *volatile g_null;

/* n == 0 must not touch dst or src: point them at inaccessible pages (a
 * dereference faults) and at NULL, in every combination. */
static void test_zero_length(void)
{
    struct pp_buf b;
    if (pp_alloc(&b, 4096) != 0) {
        cwt_fail("pp_alloc: %s", strerror(errno));
        return;
    }
    unsigned char *dsts[] = {b.data + b.len, g_null}; /* right guard page, NULL */
    unsigned char *srcs[] = {b.data - 1, g_null};     /* left guard page, NULL */
    for (int i = 0; i < 4; i++) {
        unsigned char *p = dsts[i & 1], *q = srcs[i >> 1];
        const char *what = i == 0 ? "guard, guard" : i == 1 ? "NULL, guard"
                                                 : i == 2 ? "guard, NULL"
                                                          : "NULL, NULL";
        CWT_CHECK(cw_memcpy(p, q, 0) == p, "cw_memcpy(%s, 0)", what);
        CWT_CHECK(cw_memmove(p, q, 0) == p, "cw_memmove(%s, 0)", what);
        CWT_CHECK(cw_memcpy_nt(p, q, 0) == p, "cw_memcpy_nt(%s, 0)", what);
        CWT_CHECK(cw_memcpy_flushcache_fn(p, q, 0) == p, "cw_memcpy_flushcache_fn(%s, 0)",
                  what);
        CWT_CHECK(cw_memcpy_flushcache(p, q, 0) == p, "cw_memcpy_flushcache(%s, 0)", what);
        CWT_CHECK(cw_memcpy_persist(p, q, 0) == p, "cw_memcpy_persist(%s, 0)", what);
        for (unsigned h = 0; h < 16; h++)
            if (valid_hints(h))
                CWT_CHECK(cw_copy(p, q, 0, h) == p, "cw_copy(%s, 0, 0x%x)", what, h);
    }
    cw_drain();
    pp_free(&b);
}

static void test_impls(void)
{
    const struct cw_info *in = cw_get_info();
    const char *const *list = cw_impl_list();
    CWT_CHECK(list != NULL && list[0] != NULL, "cw_impl_list() empty");
    if (list == NULL)
        return;
    CWT_CHECK(list == cw_impl_list(), "cw_impl_list() not static storage");

    /* known names only, no duplicates, best first (the known order), generic
     * always present, and never a name the CPU lacks the features for */
    size_t n = 0, last_rank = 0;
    for (; list[n] != NULL; n++) {
        size_t rank = 0;
        while (cwt_known_impls[rank] != NULL && strcmp(cwt_known_impls[rank], list[n]) != 0)
            rank++;
        CWT_CHECK(cwt_known_impls[rank] != NULL, "cw_impl_list() has unknown \"%s\"", list[n]);
        CWT_CHECK(n == 0 || rank > last_rank, "cw_impl_list() out of order or duplicate at %s",
                  list[n]);
        CWT_CHECK(cwt_cpu_can_run(list[n], in), "cw_impl_list() offers %s without its features",
                  list[n]);
        last_rank = rank;
    }
    CWT_CHECK(cwt_in_list("generic"), "generic missing from cw_impl_list()");
    for (size_t k = 0; cwt_known_impls[k] != NULL; k++)
        CWT_CHECK(!cwt_cpu_can_run(cwt_known_impls[k], in) || cwt_in_list(cwt_known_impls[k]),
                  "the CPU has every feature %s needs but cw_impl_list() lacks it",
                  cwt_known_impls[k]);
    /* with no CACHEWISE_IMPL the library picks the profile's choice or the
     * best it can run */
    const char *forced = getenv("CACHEWISE_IMPL"), *want_source;
    const char *want = cwt_default_impl(in, &want_source);
    if (forced == NULL || *forced == '\0')
        CWT_CHECK(strcmp(cw_impl_name(), want) == 0 && strcmp(in->impl_source, want_source) == 0,
                  "active %s (%s), want %s (%s)", cw_impl_name(), in->impl_source, want,
                  want_source);
    CWT_CHECK(strcmp(in->impl, cw_impl_name()) == 0, "info->impl %s != cw_impl_name() %s",
              in->impl, cw_impl_name());

    /* refusals keep the current implementation */
    const char *before = cw_impl_name();
    const char *bad[] = {NULL, "", "bogus", "AVX2", "avx2 ", "generic\n", "gener"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        errno = 0;
        int r = cw_impl_select(bad[i]);
        CWT_CHECK(r == -1 && errno == ENOENT, "cw_impl_select(\"%s\"): want -1/ENOENT, got %d/%d",
                  bad[i] ? bad[i] : "(null)", r, errno);
        CWT_CHECK(strcmp(cw_impl_name(), before) == 0 && strcmp(in->impl, before) == 0,
                  "refused select changed the impl");
    }
    for (size_t k = 0; cwt_known_impls[k] != NULL; k++) {
        const char *name = cwt_known_impls[k];
        const char *prev = cw_impl_name(), *prev_source = in->impl_source;
        errno = 0;
        int r = cw_impl_select(name);
        if (cwt_in_list(name)) {
            CWT_CHECK(r == 0, "cw_impl_select(\"%s\") failed (errno %d)", name, errno);
            CWT_CHECK(strcmp(cw_impl_name(), name) == 0 && strcmp(in->impl, name) == 0 &&
                          strcmp(in->impl_source, "api") == 0,
                      "after selecting %s: name %s, info %s (%s)", name, cw_impl_name(),
                      in->impl, in->impl_source);
            unsigned char s[100], d[100];
            fill(s, sizeof s, 7);
            fill(d, sizeof d, 0);
            cw_memcpy(d, s, sizeof s);
            CWT_CHECK(equal(d, s, sizeof s), "%s: copy after select wrong", name);
        } else {
            CWT_CHECK(r == -1 && errno == ENOTSUP,
                      "cw_impl_select(\"%s\") not runnable: want -1/ENOTSUP, got %d/%d", name, r,
                      errno);
            CWT_CHECK(strcmp(cw_impl_name(), prev) == 0 && strcmp(in->impl, prev) == 0 &&
                          strcmp(in->impl_source, prev_source) == 0,
                      "refused %s changed the impl (now %s, info %s/%s)", name, cw_impl_name(),
                      in->impl, in->impl_source);
        }
    }
    CWT_CHECK(cw_impl_select(before) == 0 && strcmp(cw_impl_name(), before) == 0,
              "cannot go back to %s", before);
}

static int is_pow2(size_t x)
{
    return x != 0 && (x & (x - 1)) == 0;
}

static void test_info(void)
{
    const struct cw_info *in = cw_get_info();
    CWT_CHECK(in != NULL && in == cw_get_info(), "cw_get_info() not stable");
    if (in == NULL)
        return;
    CWT_CHECK(in->n_errors >= 0 && in->n_errors <= CW_INFO_MAX_ERRORS, "n_errors %d",
              in->n_errors);
    if (getenv("CACHEWISE_IMPL") == NULL && getenv("CACHEWISE_NT_THRESHOLD") == NULL)
        CWT_CHECK(in->n_errors == 0, "errors recorded without any setting: %s", in->errors[0]);
    CWT_CHECK(memchr(in->cpu_vendor, 0, sizeof in->cpu_vendor) != NULL &&
                  memchr(in->cpu_model, 0, sizeof in->cpu_model) != NULL,
              "vendor/model not NUL-terminated");
    CWT_CHECK(in->cache_line == 0 || is_pow2(in->cache_line), "cache_line %zu",
              in->cache_line);
    CWT_CHECK(in->l1d_size == 0 || in->l2_size == 0 || in->l1d_size <= in->l2_size,
              "L1d %zu > L2 %zu", in->l1d_size, in->l2_size);
    CWT_CHECK(in->nt_threshold_source != NULL && in->impl_source != NULL &&
                  in->flush_insn != NULL && in->impl != NULL,
              "NULL string in cw_get_info()");
    if (in->nt_threshold_source != NULL && strcmp(in->nt_threshold_source, "cpu") == 0)
        CWT_CHECK(in->nt_threshold >= 0x4040, "computed nt_threshold %zu below glibc's floor",
                  in->nt_threshold);
    /* the flush instruction follows the documented preference */
    const char *want = in->clwb ? "clwb" : in->clflushopt ? "clflushopt"
                                           : in->clflush  ? "clflush"
                                                          : "none";
#if defined(__x86_64__)
    CWT_CHECK(in->sse2 == 1, "x86-64 without SSE2?");
    CWT_CHECK(strcmp(in->flush_insn, want) == 0, "flush_insn %s, want %s", in->flush_insn,
              want);
#elif defined(__aarch64__)
    (void)want;
    /* DC CVAC everywhere; DC CVAP only where FEAT_DPB is (HWCAP_DCPOP) */
    CWT_CHECK(in->asimd == 1, "aarch64 without Advanced SIMD?");
    CWT_CHECK(strcmp(in->flush_insn, "dc cvac") == 0 ||
                  (in->dcpop && strcmp(in->flush_insn, "dc cvap") == 0),
              "flush_insn %s (dcpop %d)", in->flush_insn, in->dcpop);
    CWT_CHECK(!in->dcpodp || in->dcpop, "DC CVADP without DC CVAP");
    CWT_CHECK(!in->sse2 && !in->avx2 && !in->avx512f && !in->clflush && !in->clwb,
              "x86 features reported on aarch64");
#else
    (void)want;
#endif
    CWT_CHECK(!in->avx512bw || in->avx512f, "avx512bw without avx512f");
    CWT_CHECK(!in->avx512f || in->avx2, "avx512f without avx2");

    char v[32];
    snprintf(v, sizeof v, "%d.%d.%d", CW_VERSION_MAJOR, CW_VERSION_MINOR, CW_VERSION_PATCH);
    CWT_CHECK(cw_version() != NULL && strcmp(cw_version(), v) == 0, "cw_version() %s, header %s",
              cw_version() ? cw_version() : "(null)", v);
}

int main(void)
{
    const struct cw_info *in = cw_get_info();
    printf("test_api: %s, impl %s, list:", in->cpu_model, cw_impl_name());
    for (const char *const *l = cw_impl_list(); *l != NULL; l++)
        printf(" %s", *l);
    printf("\n");
    test_info();
    test_hints();
    test_zero_length();
    test_impls();
    return cwt_finish("test_api");
}
