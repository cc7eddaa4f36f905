/* SPDX-License-Identifier: MIT */
/* The header's inline cw_memcpy/cw_memmove (constant sizes of 1 to 32
 * bytes) copy what the library copies: every constant size from 1 to 34
 * (just past the inline range too), at destination and source offsets
 * across a cache line, and cw_memmove at every overlap of its two buffers
 * in both directions. Each returns dst and changes no byte outside
 * [dst, dst+n). Built at the project's build type: optimised, the calls
 * here are the inline ones (tests/packaging/inline_copy.sh reads the code a
 * compiler makes of them); at -O0 they are the library's. */
#include "test_util.h"

#define BUF 192
static unsigned char g_src[BUF], g_dst[BUF], g_ref[BUF];

static void pattern(unsigned char *p, unsigned seed)
{
    for (size_t i = 0; i < BUF; i++)
        p[i] = (unsigned char)(i * 31u + seed * 17u + 1u);
}

/* After cw_memcpy(g_dst + doff, g_src + soff, n): the copy, and the rest of
 * g_dst as pattern() left it. */
static void check_copy(size_t n, size_t doff, size_t soff, const void *ret)
{
    pattern(g_ref, 1);
    for (size_t i = 0; i < n; i++)
        g_ref[doff + i] = g_src[soff + i];
    CWT_CHECK(ret == g_dst + doff, "cw_memcpy(n=%zu, dst+%zu, src+%zu) returned %p, not dst", n,
              doff, soff, ret);
    CWT_CHECK(memcmp(g_dst, g_ref, BUF) == 0, "cw_memcpy(n=%zu, dst+%zu, src+%zu): wrong bytes", n,
              doff, soff);
}

/* The size is a literal at every call site (what makes a call inline). */
#define CASE(N)                                                                                \
    do {                                                                                       \
        pattern(g_src, 2);                                                                     \
        for (size_t doff = 0; doff < 64; doff++) {                                             \
            for (size_t soff = 0; soff < 64; soff += 5) {                                      \
                pattern(g_dst, 1);                                                             \
                check_copy(N, doff, soff, cw_memcpy(g_dst + doff, g_src + soff, N));          \
            }                                                                                  \
        }                                                                                      \
        for (int shift = -(N)-2; shift <= (N) + 2; shift++) {                                  \
            unsigned char *from = g_dst + 64, *to = g_dst + 64 + shift;                       \
            pattern(g_dst, 3);                                                                 \
            memcpy(g_ref, g_dst, BUF);                                                         \
            memmove(g_ref + 64 + shift, g_ref + 64, N);                                        \
            void *ret = cw_memmove(to, from, N);                                               \
            CWT_CHECK(ret == to, "cw_memmove(n=%d, shift %d) returned %p, not dst", N, shift,  \
                      ret);                                                                    \
            CWT_CHECK(memcmp(g_dst, g_ref, BUF) == 0, "cw_memmove(n=%d, shift %d): wrong bytes", \
                      N, shift);                                                               \
        }                                                                                      \
        cases++;                                                                               \
    } while (0)

int main(void)
{
    int cases = 0;
    CASE(1); CASE(2); CASE(3); CASE(4); CASE(5); CASE(6); CASE(7); CASE(8);
    CASE(9); CASE(10); CASE(11); CASE(12); CASE(13); CASE(14); CASE(15); CASE(16);
    CASE(17); CASE(18); CASE(19); CASE(20); CASE(21); CASE(22); CASE(23); CASE(24);
    CASE(25); CASE(26); CASE(27); CASE(28); CASE(29); CASE(30); CASE(31); CASE(32);
    CASE(33); CASE(34);
    /* n == 0: nothing touched, NULL allowed */
    CWT_CHECK(cw_memcpy(NULL, NULL, 0) == NULL, "cw_memcpy(NULL, NULL, 0) is not NULL");
    CWT_CHECK(cw_memmove(NULL, NULL, 0) == NULL, "cw_memmove(NULL, NULL, 0) is not NULL");
    if (cwt_failures != 0)
        return 1;
    printf("ok: constant-size cw_memcpy/cw_memmove of 1..%d bytes, every offset and overlap\n",
           cases);
    return 0;
}
