/* STUB: replaced by the avx2 implementation. */
#include "internal.h"
const struct cwi_impl cwi_impl_avx2 = {"avx2", 0x80000000u | CWI_F_SSE2|CWI_F_AVX2, 0, 0, 0, 0, 0, 0};
