/* STUB: replaced by the sse2 implementation. */
#include "internal.h"
const struct cwi_impl cwi_impl_sse2 = {"sse2", 0x80000000u | CWI_F_SSE2, 0, 0, 0, 0, 0, 0};
