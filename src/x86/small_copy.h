/* SPDX-License-Identifier: MIT */
/* Small head/tail copies, every load before any store (so they serve
 * memmove too): at most 32 bytes with baseline x86-64 instructions (SSE2),
 * shared by the dispatcher's inline path (src/dispatch.c, compiled for the
 * baseline) and the copy ladder of every ISA (src/x86/copy_ladder.h); and
 * 32..128 bytes with AVX, below. */
#ifndef CW_X86_SMALL_COPY_H
#define CW_X86_SMALL_COPY_H

#include <immintrin.h>
#include <stddef.h>
#include <stdint.h>

typedef uint64_t cwi_u64u __attribute__((may_alias, aligned(1)));
typedef uint32_t cwi_u32u __attribute__((may_alias, aligned(1)));
typedef uint16_t cwi_u16u __attribute__((may_alias, aligned(1)));

/* n in [8, 16): two possibly overlapping 8-byte moves */
static inline __attribute__((always_inline)) void cwi_copy_8to15(unsigned char *d,
                                                                const unsigned char *s, size_t n)
{
    uint64_t a = *(const cwi_u64u *)s, b = *(const cwi_u64u *)(s + n - 8);
    *(cwi_u64u *)d = a;
    *(cwi_u64u *)(d + n - 8) = b;
}

/* n in [4, 8): two possibly overlapping 4-byte moves */
static inline __attribute__((always_inline)) void cwi_copy_4to7(unsigned char *d,
                                                               const unsigned char *s, size_t n)
{
    uint32_t a = *(const cwi_u32u *)s, b = *(const cwi_u32u *)(s + n - 4);
    *(cwi_u32u *)d = a;
    *(cwi_u32u *)(d + n - 4) = b;
}

/* n in [0, 4) */
static inline __attribute__((always_inline)) void cwi_copy_upto3(unsigned char *d,
                                                                const unsigned char *s, size_t n)
{
    if (n >= 2) {
        /* 2..3 bytes: two possibly overlapping 2-byte moves, as glibc does
         * (the first/middle/last byte version took one more load and a
         * shift: 2-3 B hot 0.77-0.89 of glibc on the Xeon) */
        uint16_t a = *(const cwi_u16u *)s, b = *(const cwi_u16u *)(s + n - 2);
        *(cwi_u16u *)d = a;
        *(cwi_u16u *)(d + n - 2) = b;
    } else if (n != 0) {
        d[0] = s[0];
    }
}

/* n in [0, 16) */
static inline __attribute__((always_inline)) void cwi_copy_upto15(unsigned char *d,
                                                                 const unsigned char *s,
                                                                 size_t n)
{
    if (n >= 8)
        cwi_copy_8to15(d, s, n);
    else if (n >= 4)
        cwi_copy_4to7(d, s, n);
    else
        cwi_copy_upto3(d, s, n);
}

/* n in [16, 32]: two possibly overlapping 16-byte moves */
static inline __attribute__((always_inline)) void cwi_copy_16to32(unsigned char *d,
                                                                 const unsigned char *s,
                                                                 size_t n)
{
    __m128i a = _mm_loadu_si128((const __m128i *)(const void *)s);
    __m128i b = _mm_loadu_si128((const __m128i *)(const void *)(s + n - 16));
    _mm_storeu_si128((__m128i *)(void *)d, a);
    _mm_storeu_si128((__m128i *)(void *)(d + n - 16), b);
}

/* n in [32, 64]: four possibly overlapping 16-byte moves, every load first */
static inline __attribute__((always_inline)) void cwi_copy_32to64(unsigned char *d,
                                                                 const unsigned char *s,
                                                                 size_t n)
{
    __m128i a = _mm_loadu_si128((const __m128i *)(const void *)s);
    __m128i b = _mm_loadu_si128((const __m128i *)(const void *)(s + 16));
    __m128i c = _mm_loadu_si128((const __m128i *)(const void *)(s + n - 32));
    __m128i e = _mm_loadu_si128((const __m128i *)(const void *)(s + n - 16));
    _mm_storeu_si128((__m128i *)(void *)d, a);
    _mm_storeu_si128((__m128i *)(void *)(d + 16), b);
    _mm_storeu_si128((__m128i *)(void *)(d + n - 32), c);
    _mm_storeu_si128((__m128i *)(void *)(d + n - 16), e);
}

/* 32-byte moves (AVX): for the AVX2 copy ladder (src/x86/copy_ladder.h)
 * and cw_memcpy's AVX2 entry (src/dispatch.c), which is compiled for the
 * baseline and enables AVX for itself. */
#define CWI_AVX_INLINE static inline __attribute__((always_inline, target("avx")))

/* n in [32, 64]: two possibly overlapping 32-byte moves */
CWI_AVX_INLINE void cwi_copy_32to64_avx(unsigned char *d, const unsigned char *s, size_t n)
{
    __m256i head = _mm256_loadu_si256((const __m256i *)(const void *)s);
    __m256i tail = _mm256_loadu_si256((const __m256i *)(const void *)(s + n - 32));
    _mm256_storeu_si256((__m256i *)(void *)d, head);
    _mm256_storeu_si256((__m256i *)(void *)(d + n - 32), tail);
}

/* n in [64, 128]: four, every load first and the stores pinned in
 * ascending order: in a small function GCC put the second head store
 * first, and 112-128 B at random offsets were about 10% slower for it
 * (AMD EPYC family 25 model 1, docs/results/amd-25-1/README.md, "All loads,
 * then head stores, then tail stores, ascending" and "33-128 B through one
 * pointer to a small-copy kernel") */
CWI_AVX_INLINE void cwi_copy_64to128_avx(unsigned char *d, const unsigned char *s, size_t n)
{
    __m256i h0 = _mm256_loadu_si256((const __m256i *)(const void *)s);
    __m256i h1 = _mm256_loadu_si256((const __m256i *)(const void *)(s + 32));
    __m256i t0 = _mm256_loadu_si256((const __m256i *)(const void *)(s + n - 64));
    __m256i t1 = _mm256_loadu_si256((const __m256i *)(const void *)(s + n - 32));
    _mm256_storeu_si256((__m256i *)(void *)d, h0);
    __asm__ volatile("" ::: "memory");
    _mm256_storeu_si256((__m256i *)(void *)(d + 32), h1);
    __asm__ volatile("" ::: "memory");
    _mm256_storeu_si256((__m256i *)(void *)(d + n - 64), t0);
    __asm__ volatile("" ::: "memory");
    _mm256_storeu_si256((__m256i *)(void *)(d + n - 32), t1);
}

#endif /* CW_X86_SMALL_COPY_H */
