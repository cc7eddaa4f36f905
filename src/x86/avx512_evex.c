/* SPDX-License-Identifier: MIT */
/* avx512-evex: the avx512 row's kernels, the same template at the same
 * 64-byte width, compiled with zmm0-15 withheld from the register allocator
 * (-ffixed-xmm0 .. -ffixed-xmm15, src/CMakeLists.txt): every vector lives
 * in zmm16-31, which only EVEX instructions name and no SSE or VEX code
 * shares, so the kernels leave no dirty upper state behind and end without
 * vzeroupper, as glibc's EVEX kernels do. On AMD EPYC family 26 model 2
 * that vzeroupper is about a cycle of a hot 48-128 B copy: 1.16-1.21x the
 * avx512 row there at fixed offsets, 0.97-1.04x at 256 B-2 KiB, 1.00-1.02x
 * on the size distributions (one binary, the rows alternating between
 * processes; docs/RESULTS.md, "The avx512-evex row"). A profile chooses it
 * (amd-zen5); built only by compilers that can withhold the registers
 * (GCC: CWI_HAVE_AVX512_EVEX). tests/test_evex_row.sh checks the object's
 * code for any of xmm0-15 and for vzeroupper. */
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

/* cw_copy_safe's fast path keeps the avx512 row's safe kernel: the same
 * bytes, and a fault stops inside its section either way */
const struct cwi_impl cwi_impl_avx512_evex = CWL_ROW(
    "avx512-evex", CWI_F_SSE2 | CWI_F_AVX2 | CWI_F_AVX512F | CWI_F_AVX512BW | CWI_F_AVX512VL,
    CWI_SAFE_KERNEL(cwi_avx512_copy_safe));
