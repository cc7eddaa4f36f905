/* SPDX-License-Identifier: MIT */
/*
 * parallel_openmp: one large copy split over an OpenMP team with
 * cw_copy_part().
 *
 * In a program that already runs an OpenMP team, the copy needs no pool of
 * the library's: every thread of the team copies its own slice (its thread
 * number of the team's size) and the barrier at the end of the parallel
 * region orders every slice before the code after it. The policy is the
 * whole copy's (a copy past the streaming threshold streams in every slice)
 * and each slice fences its own streaming stores, so the barrier is all the
 * synchronisation the copy needs. OMP_NUM_THREADS sets the team's size;
 * with OMP_PROC_BIND=spread OMP_PLACES=cores the threads spread over the
 * cores, and on a NUMA machine a thread that first touched its slice of a
 * new destination copies into memory of its own node (docs/PARALLEL.md).
 *
 * usage: parallel_openmp [MIB]   (default 32)
 * Exit status: 0 when the copy checks out, 1 otherwise.
 */
#define _POSIX_C_SOURCE 200809L
#include <cachewise.h>

#include <omp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

static uint64_t word_at(size_t i) { return (uint64_t)i * UINT64_C(0xbf58476d1ce4e5b9) ^ (i >> 9); }

int main(int argc, char **argv)
{
    size_t mib = argc > 1 ? (size_t)strtoull(argv[1], NULL, 10) : 32;
    if (mib == 0 || mib > 4096) {
        fprintf(stderr, "usage: parallel_openmp [MIB]   (1..4096)\n");
        return 2;
    }
    size_t n = mib << 20, words = n / sizeof(uint64_t);
    uint64_t *src = aligned_alloc(4096, n), *dst = aligned_alloc(4096, n);
    if (src == NULL || dst == NULL) {
        fprintf(stderr, "parallel_openmp: FAIL: out of memory\n");
        return 1;
    }
    for (size_t i = 0; i < words; i++)
        src[i] = word_at(i);

    int failed = 0, team = 0;
#pragma omp parallel reduction(| : failed)
    {
        unsigned i = (unsigned)omp_get_thread_num(), k = (unsigned)omp_get_num_threads();
        failed |= cw_copy_part(dst, src, n, 0, i, k) == NULL;
#pragma omp single nowait
        team = (int)k;
    }
    /* the region's closing barrier: every slice is done and visible here */
    for (size_t i = 0; i < words && !failed; i++)
        if (dst[i] != word_at(i)) {
            fprintf(stderr, "parallel_openmp: FAIL: word %zu is wrong\n", i);
            failed = 1;
        }
    if (!failed)
        printf("parallel_openmp: %zu MiB copied by a team of %d threads and checked\n", mib,
               team);
    free(src);
    free(dst);
    return failed ? 1 : 0;
}
