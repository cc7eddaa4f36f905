/* SPDX-License-Identifier: MIT */
/* Shared helpers of the tests (the core tests and tests/safe/): failure
 * reporting and the small RNGs (test_check.h), the seeded process RNG,
 * the contract of which implementation a CPU must be able to run, and
 * the check every per-implementation test makes before it starts
 * (CACHEWISE_IMPL). Header-only; each test is a single
 * translation unit. */
#ifndef CW_TESTS_TEST_UTIL_H
#define CW_TESTS_TEST_UTIL_H

#include <errno.h>
#include <signal.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cachewise.h"
#include "test_check.h"

#define CWT_SKIP 77 /* CTest SKIP_RETURN_CODE */

/* The process-wide generator, seeded by cwt_seed(). */
static uint64_t cwt_rng_state;

__attribute__((unused)) static uint64_t cwt_rand(void)
{
    return cwt_splitmix64(&cwt_rng_state);
}

/* Uniform in [0, bound) (bound > 0); the modulo bias is irrelevant here. */
__attribute__((unused)) static size_t cwt_below(size_t bound)
{
    return (size_t)(cwt_rand() % bound);
}

/* Seed from CW_TEST_SEED, else from the clock; printed so that any failure
 * can be replayed exactly. */
__attribute__((unused)) static uint64_t cwt_seed(const char *prog)
{
    const char *s = getenv("CW_TEST_SEED");
    uint64_t seed;
    if (s != NULL && *s != '\0')
        seed = strtoull(s, NULL, 0);
    else
        seed = (uint64_t)time(NULL) ^ ((uint64_t)clock() << 20);
    cwt_rng_state = seed;
    printf("%s: seed %" PRIu64 " (replay with CW_TEST_SEED=%" PRIu64 ")\n", prog, seed, seed);
    return seed;
}

/* Names the library knows on this architecture, best first: CW_TEST_IMPLS
 * of tests/CMakeLists.txt (CWT_IMPLS), so the C tests and the tests CTest
 * registers per implementation never disagree. */
#if !defined(CWT_IMPLS)
#if defined(__x86_64__)
#define CWT_IMPLS "avx512", "avx2", "sse2", "generic"
#else
#define CWT_IMPLS "generic"
#endif
#endif
static const char *const cwt_known_impls[] = {CWT_IMPLS, NULL};

/* The minimum the contract promises: an implementation runs wherever the
 * CPU and OS offer its ISA (on x86-64 selection by CPUID + XGETBV; on
 * aarch64 by the kernel's HWCAP bits). */
__attribute__((unused)) static int cwt_cpu_can_run(const char *name, const struct cw_info *in)
{
    if (strcmp(name, "generic") == 0)
        return 1;
    if (strcmp(name, "sse2") == 0)
        return in->sse2;
    if (strcmp(name, "avx2") == 0)
        return in->sse2 && in->avx2;
    if (strcmp(name, "avx512") == 0 || strcmp(name, "avx512-evex") == 0)
        return in->avx2 && in->avx512f && in->avx512bw && in->avx512vl;
#if defined(__aarch64__)
    /* the NEON row: Advanced SIMD (HWCAP_ASIMD) */
    if (strcmp(name, "aarch64") == 0)
        return in->asimd;
#endif
    return 0;
}

__attribute__((unused)) static int cwt_in_list(const char *name)
{
    for (const char *const *l = cw_impl_list(); *l != NULL; l++)
        if (strcmp(*l, name) == 0)
            return 1;
    return 0;
}

/* The implementation the library runs with nothing forcing one: the
 * profile's own choice where the build has it and the CPU runs it
 * (src/profiles.c: amd-zen5 and amd-zen4 choose avx512-evex), else the best runnable,
 * cw_impl_list()'s first. *source: the impl_source it reports, "profile"
 * or "cpu". */
__attribute__((unused)) static const char *cwt_default_impl(const struct cw_info *in,
                                                            const char **source)
{
    static const struct {
        const char *profile, *impl;
    } chosen[] = {{"amd-zen5", "avx512-evex"}, {"amd-zen4", "avx512-evex"}};
    for (size_t i = 0; i < sizeof chosen / sizeof chosen[0]; i++)
        if (in->profile != NULL && strcmp(in->profile, chosen[i].profile) == 0 &&
            cwt_in_list(chosen[i].impl)) {
            *source = "profile";
            return chosen[i].impl;
        }
    *source = "cpu";
    return cw_impl_list()[0];
}

/* Index of the first recorded configuration error containing `needle`,
 * or -1. */
__attribute__((unused)) static int cwt_find_error(const char *needle)
{
    const struct cw_info *in = cw_get_info();
    int n = in->n_errors < CW_INFO_MAX_ERRORS ? in->n_errors : CW_INFO_MAX_ERRORS;
    for (int i = 0; i < n; i++)
        if (strstr(in->errors[i], needle) != NULL)
            return i;
    return -1;
}

/* Run at the start of every per-implementation test. With CACHEWISE_IMPL
 * set, the library must either run exactly that implementation (chosen by
 * the environment) or have refused it for a good reason, recorded in
 * cw_get_info(); the latter is a skip (CWT_SKIP), anything else a failure
 * (returns 1). Returns 0 to go on. */
__attribute__((unused)) static int cwt_check_forced_impl(const char *prog)
{
    const char *want = getenv("CACHEWISE_IMPL");
    const struct cw_info *in = cw_get_info();
    const char *active = cw_impl_name();
    if (want == NULL || *want == '\0') {
        printf("%s: implementation %s (%s)\n", prog, active, in->impl_source);
        return 0;
    }
    if (strcmp(active, want) == 0) {
        if (strcmp(in->impl_source, "env") != 0) {
            cwt_fail("CACHEWISE_IMPL=%s active but impl_source is \"%s\", not \"env\"", want,
                     in->impl_source);
            return 1;
        }
        printf("%s: implementation %s forced by CACHEWISE_IMPL\n", prog, active);
        return 0;
    }
    /* Refused: it must be a known name that this CPU cannot run, the refusal
     * must be on record, and the library must have kept its own choice. */
    int fail = 0;
    if (cwt_find_error(want) < 0 || cwt_find_error("CACHEWISE_IMPL") < 0) {
        cwt_fail("CACHEWISE_IMPL=%s not active (%s is) and no error recorded in cw_get_info()",
                 want, active);
        fail = 1;
    }
    if (strcmp(in->impl_source, "cpu") != 0) {
        cwt_fail("refused CACHEWISE_IMPL=%s but impl_source is \"%s\"", want, in->impl_source);
        fail = 1;
    }
    errno = 0;
    if (cw_impl_select(want) != -1 || errno != ENOTSUP) {
        cwt_fail("cw_impl_select(\"%s\") after the refusal: want -1/ENOTSUP, got errno %d", want,
                 errno);
        fail = 1;
    }
    if (strcmp(cw_impl_name(), active) != 0 || strcmp(in->impl, active) != 0) {
        cwt_fail("refused cw_impl_select(\"%s\") changed the implementation", want);
        fail = 1;
    }
    if (cwt_cpu_can_run(want, in)) {
        cwt_fail("%s refused although cw_get_info() shows every feature it needs", want);
        fail = 1;
    }
    if (fail)
        return 1;
    printf("%s: SKIP: this CPU cannot run %s (refusal recorded: \"%s\")\n", prog, want,
           in->errors[cwt_find_error(want)]);
    return CWT_SKIP;
}

/* The case in progress, kept up to date by the copy loops (plain stores,
 * cheap), so that a crash on a guard page says which case touched it. */
static struct {
    const char *what;
    size_t n;
    const void *dst, *src;
} cwt_ctx;

static void cwt_crash(int sig)
{
    char line[256];
    int len = snprintf(line, sizeof line,
                       "FAIL: signal %d (a guard page was touched?) during %s, n=%zu, "
                       "dst=%p (mis %u), src=%p (mis %u)\n",
                       sig, cwt_ctx.what ? cwt_ctx.what : "?", cwt_ctx.n, cwt_ctx.dst,
                       (unsigned)((uintptr_t)cwt_ctx.dst & 63), cwt_ctx.src,
                       (unsigned)((uintptr_t)cwt_ctx.src & 63));
    if (len > 0)
        (void)!write(1, line, (size_t)len < sizeof line ? (size_t)len : sizeof line - 1);
    signal(sig, SIG_DFL);
    raise(sig);
}

__attribute__((unused)) static void cwt_report_crashes(void)
{
    setvbuf(stdout, NULL, _IOLBF, 0);
    signal(SIGSEGV, cwt_crash);
    signal(SIGBUS, cwt_crash);
}

/* Byte count with optional K/M/G suffix (binary), for test options. */
__attribute__((unused)) static int cwt_parse_size(const char *t, size_t *out)
{
    char *end;
    errno = 0;
    unsigned long long v = strtoull(t, &end, 10);
    if (errno != 0 || end == t || *t == '-')
        return -1;
    switch (*end) {
    case 'K':
    case 'k':
        v <<= 10;
        end++;
        break;
    case 'M':
    case 'm':
        v <<= 20;
        end++;
        break;
    case 'G':
    case 'g':
        v <<= 30;
        end++;
        break;
    default: break;
    }
    if (*end != '\0')
        return -1;
    *out = (size_t)v;
    return 0;
}

/* Common exit: failures counted by cwt_fail decide. */
__attribute__((unused)) static int cwt_finish(const char *prog)
{
    if (cwt_failures != 0) {
        printf("%s: %ld failure(s)\n", prog, cwt_failures);
        return 1;
    }
    printf("%s: all checks passed\n", prog);
    return 0;
}

#endif /* CW_TESTS_TEST_UTIL_H */
