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
 * processes; docs/results/amd-26-2/README.md, "The avx512-evex row"). A profile chooses it
 * (amd-zen5, amd-zen4); built only by compilers that can withhold the registers
 * (GCC: CWI_HAVE_AVX512_EVEX). tests/test_evex_row.sh checks the object's
 * code for any of xmm0-15 and for vzeroupper. */
#define CWL_EVEX_INSTANCE 1
#include "avx512.c"
