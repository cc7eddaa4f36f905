/* SPDX-License-Identifier: MIT */
/*
 * clone: move a large buffer to new memory with CW_SRC_NOREUSE.
 *
 * A program moves a big buffer to a new allocation (growing it, moving it
 * to huge pages or to the NUMA node that uses it, compacting) and frees the
 * old one. The source is read exactly once: left to ordinary loads, every
 * line of it passes through the caches and pushes out the program's own
 * working set (here: a small lookup table it keeps using). CW_SRC_NOREUSE
 * reads the source with non-temporal hints and, on x86 CPUs with
 * clflushopt, evicts its lines right after reading them. That is only right
 * when the source is not read again soon: after the copy the old buffer is
 * freed, never touched. (Taking a snapshot of live state is the opposite
 * case: the source stays in use, and evicting it would cost the program.)
 *
 * The destination hint is left to the library (no CW_DST_* bit): a copy this
 * large streams the destination too, above the non-temporal threshold
 * (cw_get_info()->nt_threshold). `cwbench pollution` measures what a copy
 * evicts, for this and the other routines.
 *
 * usage: clone [MIB]   (buffer size in MiB, default 64)
 * Exit status: 0 when the clone and the working set check out, 1 otherwise.
 */
#define _POSIX_C_SOURCE 200809L
#include <cachewise.h>

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define TABLE_WORDS (32 * 1024) /* the working set: 256 KiB of uint64_t */

/* The buffer's content: a function of the offset, so the clone can be
 * checked without reading the source again. */
static uint64_t word_at(size_t i) { return (uint64_t)i * UINT64_C(0x9e3779b97f4a7c15) ^ (i >> 7); }

static uint64_t table_sum(const uint64_t *t)
{
    uint64_t s = 0;
    for (size_t i = 0; i < TABLE_WORDS; i++)
        s += t[i];
    return s;
}

int main(int argc, char **argv)
{
    size_t mib = argc > 1 ? (size_t)strtoull(argv[1], NULL, 10) : 64;
    if (mib == 0 || mib > 4096) {
        fprintf(stderr, "usage: clone [MIB]   (1..4096)\n");
        return 2;
    }
    size_t n = mib << 20, words = n / sizeof(uint64_t);

    uint64_t *table = malloc(TABLE_WORDS * sizeof *table);
    uint64_t *old = aligned_alloc(4096, n);
    if (table == NULL || old == NULL) {
        fprintf(stderr, "clone: FAIL: out of memory\n");
        return 1;
    }
    for (size_t i = 0; i < TABLE_WORDS; i++)
        table[i] = i;
    for (size_t i = 0; i < words; i++)
        old[i] = word_at(i);
    uint64_t before = table_sum(table);

    /* The move. cw_copy() returns NULL (errno EINVAL) only for contradictory
     * or unknown hints; checking it costs nothing. */
    uint64_t *moved = aligned_alloc(4096, n);
    if (moved == NULL) {
        fprintf(stderr, "clone: FAIL: out of memory\n");
        return 1;
    }
    if (cw_copy(moved, old, n, CW_SRC_NOREUSE) != moved) {
        fprintf(stderr, "clone: FAIL: cw_copy: %s\n", strerror(errno));
        return 1;
    }
    free(old); /* the source is never read again: what CW_SRC_NOREUSE assumes */

    size_t bad = 0;
    for (size_t i = 0; i < words; i++)
        bad += moved[i] != word_at(i);
    uint64_t after = table_sum(table);
    printf("clone: %zu MiB moved with CW_SRC_NOREUSE (%s, destination %s): %zu words differ\n",
           mib, cw_impl_name(), n >= cw_get_info()->nt_threshold ? "streamed" : "cached", bad);
    free(moved);
    free(table);
    if (bad != 0 || after != before) {
        fprintf(stderr, "clone: FAIL: the clone or the working set is wrong\n");
        return 1;
    }
    printf("clone: ok\n");
    return 0;
}
