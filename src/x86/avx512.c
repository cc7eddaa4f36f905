/* STUB: replaced by the avx512 implementation. */
#include "internal.h"
const struct cwi_impl cwi_impl_avx512 = {"avx512", 0x80000000u | CWI_F_SSE2|CWI_F_AVX2|CWI_F_AVX512F|CWI_F_AVX512BW|CWI_F_AVX512VL, 0, 0, 0, 0, 0, 0};
