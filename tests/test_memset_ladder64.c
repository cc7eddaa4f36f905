/* SPDX-License-Identifier: MIT */
/* The fill kernels of the 64-byte-vector template instance, on any AVX2 CPU.
 *
 * The avx512 row's fills are src/x86/memset_ladder.h compiled with
 * CWL_W = 64, which a CPU without AVX-512 can never run. ladder64_row.c
 * (shared with test_ladder64) builds the same template from two AVX2
 * registers per "vector", with streaming stores that abort on an address
 * that isn't 64-byte aligned (a real zmm store would fault), and without
 * CWL_SET1 (the portable broadcast). Here its memset_nt, memset_flushcache
 * and memset_persist kernels go through the differential cases of
 * test_memset (tests/memset_cases.h). The kernels do not fence, so every
 * call is followed by cw_drain(). */
#include <stdint.h>

#include "internal.h"
#include "test_util.h"
#include "memset_cases.h"

extern const struct cwi_impl test_ladder64;

int main(void)
{
    cwt_report_crashes();
    const struct cw_info *in = cw_get_info(); /* the flush instruction and the policy */
    if (!in->avx2) {
        printf("test_memset_ladder64: SKIP: no AVX2 on this CPU\n");
        return CWT_SKIP;
    }
    cwt_seed("test_memset_ladder64");
    const struct mc_func k[] = {
        {"ladder64.memset_nt", test_ladder64.memset_nt, 1},
        {"ladder64.memset_flushcache", test_ladder64.memset_flushcache, 1},
        {"ladder64.memset_persist", test_ladder64.memset_persist, 1},
    };
    const char *e = getenv("CW_TEST_QUICK");
    if (mc_setup((size_t)4 << 20, e != NULL && *e != '\0' && *e != '0') != 0) {
        perror("test_memset_ladder64: buffers");
        return 1;
    }
    for (size_t i = 0; i < sizeof k / sizeof k[0]; i++)
        mc_run(&k[i], in->nt_threshold);
    printf("test_memset_ladder64: %ld cases\n", mc_cases);
    mc_teardown();
    return cwt_finish("test_memset_ladder64");
}
