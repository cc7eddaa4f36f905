/* SPDX-License-Identifier: MIT */
/* avx512: the copy ladder with 64-byte vectors. It cannot be run on the
 * development machine (no AVX-512 there), so it is deliberately nothing but
 * an instance of the template that sse2 and avx2 exercise: no masked tails,
 * no code of its own. */
#include <immintrin.h>

#include "internal.h"

#define CWL_W 64
#define CWL_V __m512i
#define CWL_LOADU(p) _mm512_loadu_si512((const void *)(p))
#define CWL_STOREU(p, v) _mm512_storeu_si512((void *)(p), (v))
#define CWL_STOREA(p, v) _mm512_store_si512((void *)(p), (v))
#define CWL_STREAM(p, v) _mm512_stream_si512((__m512i *)(void *)(p), (v))
#define CWL_SET1(c) _mm512_set1_epi8((char)(c))
#include "copy_ladder.h"

#ifdef CWL_SAFE_INSTANCE
CWL_SAFE_KERNEL_DEF(cwi_avx512_copy_safe)
#else
const struct cwi_impl cwi_impl_avx512 =
    CWL_ROW("avx512", CWI_F_SSE2 | CWI_F_AVX2 | CWI_F_AVX512F | CWI_F_AVX512BW | CWI_F_AVX512VL,
            CWI_SAFE_KERNEL(cwi_avx512_copy_safe));
#endif
