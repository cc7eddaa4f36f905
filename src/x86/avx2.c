/* SPDX-License-Identifier: MIT */
/* avx2: the copy ladder with 32-byte vectors. */
#include <immintrin.h>

#include "internal.h"

#define CWL_W 32
#define CWL_V __m256i
#define CWL_LOADU(p) _mm256_loadu_si256((const __m256i *)(const void *)(p))
#define CWL_STOREU(p, v) _mm256_storeu_si256((__m256i *)(void *)(p), (v))
#define CWL_STOREA(p, v) _mm256_store_si256((__m256i *)(void *)(p), (v))
#define CWL_STREAM(p, v) _mm256_stream_si256((__m256i *)(void *)(p), (v))
#define CWL_SET1(c) _mm256_set1_epi8((char)(c))
#include "copy_ladder.h"

#ifdef CWL_SAFE_INSTANCE
CWL_SAFE_KERNEL_DEF(cwi_avx2_copy_safe)
#else
const struct cwi_impl cwi_impl_avx2 =
    CWL_ROW("avx2", CWI_F_SSE2 | CWI_F_AVX2, CWI_SAFE_KERNEL(cwi_avx2_copy_safe));
#endif
