/* SPDX-License-Identifier: MIT */
/* The 64-byte-vector instance of the x86 copy ladder for test_ladder64.c,
 * compiled with -mavx2: two AVX2 registers stand in for one zmm, and the
 * aligned and streaming stores abort on an address that isn't 64-byte
 * aligned (a real zmm aligned store faults). */
#include <immintrin.h>
#include <stdlib.h>

#include "internal.h"

typedef struct {
    __m256i lo, hi;
} v64;

static inline v64 v64_load(const void *p)
{
    v64 v;
    v.lo = _mm256_loadu_si256((const __m256i *)p);
    v.hi = _mm256_loadu_si256((const __m256i *)((const char *)p + 32));
    return v;
}

static inline void v64_store(void *p, v64 v)
{
    _mm256_storeu_si256((__m256i *)p, v.lo);
    _mm256_storeu_si256((__m256i *)((char *)p + 32), v.hi);
}

static inline void v64_store_aligned(void *p, v64 v)
{
    if ((uintptr_t)p & 63)
        abort();
    v64_store(p, v);
}

static inline void v64_stream(void *p, v64 v)
{
    if ((uintptr_t)p & 63)
        abort();
    _mm256_stream_si256((__m256i *)p, v.lo);
    _mm256_stream_si256((__m256i *)((char *)p + 32), v.hi);
}

#define CWL_W 64
#define CWL_V v64
#define CWL_LOADU(p) v64_load(p)
#define CWL_STOREU(p, v) v64_store((p), (v))
#define CWL_STOREA(p, v) v64_store_aligned((p), (v))
#define CWL_STREAM(p, v) v64_stream((p), (v))
#include "x86/copy_ladder.h"

const struct cwi_impl test_ladder64 = CWL_ROW("ladder64", 0, NULL);

