/* SPDX-License-Identifier: MIT */
/* avx512: the copy ladder with 64-byte vectors, deliberately nothing but an
 * instance of the template that sse2 and avx2 exercise: no masked tails, no
 * code of its own. So a CPU without AVX-512 (AMD EPYC family 25 model 1,
 * docs/results/amd-25-1/README.md) still tests every line of it: the rows
 * it shares with sse2 and avx2, and its 64-byte widths through
 * tests/test_ladder64.c. */
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

/* what both builds of these kernels need (avx512, avx512-evex) */
#define AVX512_REQUIRED                                                                          \
    (CWI_F_SSE2 | CWI_F_AVX2 | CWI_F_AVX512F | CWI_F_AVX512BW | CWI_F_AVX512VL)

#if defined(CWL_SAFE_INSTANCE)
CWL_SAFE_KERNEL_DEF(cwi_avx512_copy_safe)
#elif defined(CWL_EVEX_INSTANCE)
/* this row's 33..128 B kernel by name, for the shared library's cw_memcpy
 * entry on CPUs whose profile prefers the row (src/dispatch.c) */
void *cwi_evex_memcpy_small(void *restrict dst, const void *restrict src, size_t n)
    __attribute__((alias("cwl_k_memcpy_small_flat")));
/* the same kernels built into zmm16-31 (x86/avx512_evex.c); cw_copy_safe's
 * fast path keeps the avx512 row's safe kernel: the same bytes, and a fault
 * stops inside its section either way */
const struct cwi_impl cwi_impl_avx512_evex =
    CWL_ROW("avx512-evex", AVX512_REQUIRED, CWI_SAFE_KERNEL(cwi_avx512_copy_safe));
#else
const struct cwi_impl cwi_impl_avx512 =
    CWL_ROW("avx512", AVX512_REQUIRED, CWI_SAFE_KERNEL(cwi_avx512_copy_safe));
#endif
