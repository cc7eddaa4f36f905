/* SPDX-License-Identifier: MIT */
/* sse2: the copy ladder with 16-byte vectors; runs on every x86-64 CPU. */
#include <emmintrin.h>

#include "internal.h"

#define CWL_W 16
#define CWL_V __m128i
#define CWL_LOADU(p) _mm_loadu_si128((const __m128i *)(const void *)(p))
#define CWL_STOREU(p, v) _mm_storeu_si128((__m128i *)(void *)(p), (v))
#define CWL_STOREA(p, v) _mm_store_si128((__m128i *)(void *)(p), (v))
#define CWL_STREAM(p, v) _mm_stream_si128((__m128i *)(void *)(p), (v))
#define CWL_SET1(c) _mm_set1_epi8((char)(c))
#include "copy_ladder.h"

#ifdef CWL_SAFE_INSTANCE
CWL_SAFE_KERNEL_DEF(cwi_sse2_copy_safe)
#else
const struct cwi_impl cwi_impl_sse2 =
    CWL_ROW("sse2", CWI_F_SSE2, CWI_SAFE_KERNEL(cwi_sse2_copy_safe));
#endif
