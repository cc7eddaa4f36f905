/* SPDX-License-Identifier: MIT */
/* The one check helper of every test (the library's, the safe copy's and
 * cwbench's unit tests): failures reported with file:line and counted in
 * cwt_failures, and the small RNGs the tests draw sizes and offsets from.
 * Header-only, nothing from the library: cwbench's unit tests include it
 * without linking libcachewise. */
#ifndef CW_TESTS_TEST_CHECK_H
#define CW_TESTS_TEST_CHECK_H

#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>

static long cwt_failures;

/* Report a failure at file:line (the failed condition too, where cond is
 * not NULL) and keep going: one run shows every broken size class, but a
 * systematically broken kernel must not print a million lines. Called
 * through cwt_fail() and CWT_CHECK(). */
__attribute__((format(printf, 4, 5), unused)) static void
cwt_fail_at(const char *file, int line, const char *cond, const char *fmt, ...)
{
    if (++cwt_failures <= 25) {
        va_list ap;
        va_start(ap, fmt);
        printf("FAIL: %s:%d: ", file, line);
        if (cond != NULL)
            printf("check failed: %s: ", cond);
        vprintf(fmt, ap);
        fputc('\n', stdout);
        va_end(ap);
    } else if (cwt_failures == 26) {
        puts("FAIL: (further failures not printed)");
    }
    fflush(stdout);
}

/* cwt_fail(fmt, ...): a failure, reported with the caller's file:line. */
#define cwt_fail(...) cwt_fail_at(__FILE__, __LINE__, NULL, __VA_ARGS__)

/* CWT_CHECK(cond, fmt, ...): a failure unless cond holds. */
#define CWT_CHECK(cond, ...)                                                                     \
    do {                                                                                         \
        if (!(cond))                                                                             \
            cwt_fail_at(__FILE__, __LINE__, #cond, __VA_ARGS__);                                 \
    } while (0)

/* CWT_EXPECT(cond): a failure unless cond holds, reported by the condition
 * alone. */
#define CWT_EXPECT(cond)                                                                         \
    do {                                                                                         \
        if (!(cond))                                                                             \
            cwt_fail_at(__FILE__, __LINE__, #cond, "%s", "does not hold");                       \
    } while (0)

/* CWT_NEAR(x, want, tol): a failure unless |x - want| <= tol (a NaN fails). */
#define CWT_NEAR(x, want, tol)                                                                   \
    do {                                                                                         \
        double x_ = (x), w_ = (want);                                                            \
        if (!(fabs(x_ - w_) <= (tol)))                                                           \
            cwt_fail_at(__FILE__, __LINE__, NULL, "%s = %.17g, want %.17g", #x, x_, w_);         \
    } while (0)

/* splitmix64: tiny, full-period, good enough to pick sizes and offsets.
 * Advances *state; for a generator per thread. */
__attribute__((unused)) static uint64_t cwt_splitmix64(uint64_t *state)
{
    uint64_t z = (*state += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

/* xorshift64 (13, 7, 17): *state (never 0) advanced and returned. */
__attribute__((unused)) static uint64_t cwt_xorshift64(uint64_t *state)
{
    *state ^= *state << 13;
    *state ^= *state >> 7;
    *state ^= *state << 17;
    return *state;
}

#endif /* CW_TESTS_TEST_CHECK_H */
