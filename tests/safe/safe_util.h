/* SPDX-License-Identifier: MIT */
/* Shared helpers of the cw_copy_safe tests: page-granular buffers whose
 * pages can be made inaccessible, fill patterns and the implementation
 * check. Failures are reported with tests/test_util.h's CWT_CHECK. */
#ifndef SAFE_UTIL_H
#define SAFE_UTIL_H

#define _GNU_SOURCE
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "../test_util.h"
#include "cachewise.h"

/* Sanitizer builds (docs/SAFE.md says what each one cannot do). */
#if defined(__SANITIZE_ADDRESS__)
#define SAFE_ASAN 1
#endif
#if defined(__SANITIZE_THREAD__)
#define SAFE_TSAN 1
#endif
#if defined(__has_feature)
#if __has_feature(address_sanitizer)
#define SAFE_ASAN 1
#endif
#if __has_feature(thread_sanitizer)
#define SAFE_TSAN 1
#endif
#endif

static inline void die(const char *what)
{
    perror(what);
    exit(2);
}

static inline size_t page_size(void)
{
    return (size_t)sysconf(_SC_PAGESIZE);
}

static inline unsigned char *map_pages(size_t pages)
{
    void *p = mmap(NULL, pages * page_size(), PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
                   -1, 0);
    if (p == MAP_FAILED)
        die("mmap");
    return p;
}

/* Source bytes are never 0 and never 0xEE, the destination's canary, so a
 * byte that was not copied, not zeroed or wrongly written always shows. */
static inline unsigned char pattern(size_t i, unsigned seed)
{
    uint32_t x = (uint32_t)i * 2654435761u + seed * 40503u;
    return (unsigned char)((x >> 16) % 127u + 1u);
}
#define CANARY 0xEE

/* Select the implementation CTest forced through CACHEWISE_IMPL (argv[1]).
 * Returns 0 to run, CWT_SKIP when this CPU cannot run it, 1 when the
 * environment was ignored (a real failure). */
static inline int use_impl(const char *name)
{
    if (name == NULL || strcmp(cw_impl_name(), name) == 0)
        return 0;
    if (cw_impl_select(name) != 0 && errno == ENOTSUP) {
        printf("SKIP: implementation %s not runnable on this CPU\n", name);
        return CWT_SKIP;
    }
    fprintf(stderr, "CACHEWISE_IMPL=%s was not applied (active: %s)\n", name, cw_impl_name());
    return 1;
}

/* The start of a fault test run as `test [IMPL]`: the implementation
 * selected (use_impl's result returned when not 0), cw_safe_init() done,
 * and the implementation and threshold in force printed. */
static inline int safe_test_start(int argc, char **argv)
{
    int rc = use_impl(argc > 1 ? argv[1] : NULL);
    if (rc != 0)
        return rc;
    if (cw_safe_init() != 0)
        die("cw_safe_init");
    printf("impl %s, nt_threshold %zu\n", cw_impl_name(), cw_get_info()->nt_threshold);
    return 0;
}

#endif
