/* SPDX-License-Identifier: MIT */
/* cw_copy_safe's fault tests (tests/safe/safe_faults.c, compiled in here
 * as they are) for the x86 CPU matrix, without their edge-case section:
 * qemu-user 7.2 reports the general-protection fault of a non-canonical
 * access as SIGSEGV with SEGV_MAPERR and no address, where Linux reports
 * SI_KERNEL, so cw_copy_safe rightly leaves that fault alone and the
 * process dies there. Every position (a fault at the first byte, in the
 * middle, on the last page and just past the end, of either buffer, by
 * PROT_NONE, munmap, a read-only destination and a truncated file) and the
 * random two-sided faults run as in safe_faults.
 *
 * usage: cpu_matrix_safe IMPL [TWO_SIDED_CASES]   (exit 77: IMPL cannot run) */
#define main cwt_safe_faults_main
int cwt_safe_faults_main(int argc, char **argv);
#include "safe/safe_faults.c"
#undef main

int main(int argc, char **argv)
{
    if (argc < 2 || argc > 3) {
        fprintf(stderr, "usage: cpu_matrix_safe IMPL [TWO_SIDED_CASES]\n");
        return 2;
    }
    P = page_size();
    int rc = use_impl(argv[1]);
    if (rc != 0)
        return rc;
    if (cw_safe_init() != 0)
        die("cw_safe_init");
    printf("impl %s, nt_threshold %zu\n", cw_impl_name(), cw_get_info()->nt_threshold);
    every_position();
    random_two_sided(argc > 2 ? atoi(argv[2]) : 400);
    return cwt_finish("cpu_matrix_safe");
}
