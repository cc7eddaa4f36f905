/* Copies of at most 32 bytes with baseline x86-64 instructions (SSE2),
 * every load before any store (so they serve memmove too). Shared by the
 * dispatcher's inline path (src/dispatch.c, compiled for the baseline) and
 * the copy ladder of every ISA (src/x86/copy_ladder.h). */
#ifndef CW_X86_SMALL_COPY_H
#define CW_X86_SMALL_COPY_H

#include <emmintrin.h>
#include <stddef.h>
#include <stdint.h>

typedef uint64_t cwi_u64u __attribute__((may_alias, aligned(1)));
typedef uint32_t cwi_u32u __attribute__((may_alias, aligned(1)));

/* n in [0, 16) */
static inline __attribute__((always_inline)) void cwi_copy_upto15(unsigned char *d,
                                                                 const unsigned char *s,
                                                                 size_t n)
{
    if (n >= 8) {
        uint64_t a = *(const cwi_u64u *)s, b = *(const cwi_u64u *)(s + n - 8);
        *(cwi_u64u *)d = a;
        *(cwi_u64u *)(d + n - 8) = b;
    } else if (n >= 4) {
        uint32_t a = *(const cwi_u32u *)s, b = *(const cwi_u32u *)(s + n - 4);
        *(cwi_u32u *)d = a;
        *(cwi_u32u *)(d + n - 4) = b;
    } else if (n != 0) {
        /* 1..3 bytes without a loop: first, middle, last (some coincide) */
        unsigned char a = s[0], b = s[n >> 1], c = s[n - 1];
        d[0] = a;
        d[n >> 1] = b;
        d[n - 1] = c;
    }
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

#endif /* CW_X86_SMALL_COPY_H */
