/* SPDX-License-Identifier: MIT */
/* Makes a known set of copy calls (through volatile function pointers, so
 * the compiler cannot inline them) and prints them as "call FN SIZE COUNT"
 * lines; check_profile.py compares them with the profile the shim wrote.
 * With --expect-shim it first checks that the calls really reach
 * libcachewise-preload.so. Every copy is verified.
 * With --signal PROFILE (and CACHEWISE_PROFILE_SIGNAL=1) it then raises
 * SIGUSR2, moves the flushed profile to PROFILE.signal and makes one more
 * call (memcpy of 7 bytes) that only the exit profile may contain. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "interposed.h"

struct call {
    const char *fn;
    size_t size, count;
};

static const struct call calls[] = {
    {"memcpy", 0, 3},         {"memcpy", 1, 5},        {"memcpy", 8, 7},
    {"memcpy", 64, 11},       {"memcpy", 100, 2},      {"memcpy", 4096, 4},
    {"memcpy", 4097, 1},      {"memcpy", 5000, 2},     {"memcpy", 8191, 1},
    {"memcpy", 8192, 3},      {"memcpy", 1 << 20, 2},  {"memcpy", (3 << 20) + 5, 1},
    {"memmove", 33, 6},       {"memmove", 2000, 1},    {"mempcpy", 17, 9},
    {"mempcpy", 100, 1},      {"__memcpy_chk", 24, 5}, {"__memmove_chk", 40, 2},
    {"__mempcpy_chk", 50, 1},
};

static int check_resolved(const char *name, void *fn)
{
    Dl_info info;
    if (dladdr(fn, &info) == 0 || info.dli_fname == NULL ||
        strstr(info.dli_fname, "cachewise-preload") == NULL) {
        fprintf(stderr, "%s resolves to %s, not to the shim\n", name,
                info.dli_fname ? info.dli_fname : "?");
        return 1;
    }
    return 0;
}

int main(int argc, char **argv)
{
    const char *signal_profile = NULL;
    if (argc > 2 && strcmp(argv[1], "--signal") == 0)
        signal_profile = argv[2];
    if (argc > 1 && strcmp(argv[1], "--expect-shim") == 0) {
        int bad = check_resolved("memcpy", (void *)p_memcpy) +
                  check_resolved("memmove", (void *)p_memmove) +
                  check_resolved("mempcpy", (void *)p_mempcpy) +
                  check_resolved("__memcpy_chk", (void *)p_memcpy_chk) +
                  check_resolved("__memmove_chk", (void *)p_memmove_chk) +
                  check_resolved("__mempcpy_chk", (void *)p_mempcpy_chk);
        if (bad)
            return 1;
    }
    size_t max = (3 << 20) + 5 + 64;
    unsigned char *src = malloc(max), *dst = malloc(max);
    if (!src || !dst)
        return 1;
    for (size_t i = 0; i < max; i++)
        src[i] = (unsigned char)(i * 131 + 7);
    for (size_t c = 0; c < sizeof calls / sizeof calls[0]; c++) {
        const struct call *k = &calls[c];
        for (size_t r = 0; r < k->count; r++) {
            for (size_t i = 0; i < k->size + 64; i++)
                dst[i] = 0xEE;
            const unsigned char *from = src + r;
            void *ret, *want = dst;
            if (strcmp(k->fn, "memcpy") == 0) {
                ret = p_memcpy(dst, from, k->size);
            } else if (strcmp(k->fn, "memmove") == 0) {
                /* overlapping, destination above the source */
                for (size_t i = 0; i < k->size + 8; i++)
                    dst[i] = src[i];
                from = src;
                ret = p_memmove(dst + 5, dst, k->size);
                want = dst + 5;
            } else if (strcmp(k->fn, "mempcpy") == 0) {
                ret = p_mempcpy(dst, from, k->size);
                want = dst + k->size;
            } else if (strcmp(k->fn, "__memcpy_chk") == 0) {
                ret = p_memcpy_chk(dst, from, k->size, k->size + 1);
            } else if (strcmp(k->fn, "__memmove_chk") == 0) {
                ret = p_memmove_chk(dst, from, k->size, k->size);
            } else {
                ret = p_mempcpy_chk(dst, from, k->size, max);
                want = dst + k->size;
            }
            if (ret != want) {
                fprintf(stderr, "%s(%zu): wrong return value\n", k->fn, k->size);
                return 1;
            }
            size_t at = strcmp(k->fn, "memmove") == 0 ? 5 : 0;
            for (size_t i = 0; i < k->size; i++) {
                if (dst[at + i] != from[i]) {
                    fprintf(stderr, "%s(%zu): byte %zu wrong\n", k->fn, k->size, i);
                    return 1;
                }
            }
            if (dst[at + k->size] != (at ? src[k->size + 5] : 0xEE)) {
                fprintf(stderr, "%s(%zu): wrote past the end\n", k->fn, k->size);
                return 1;
            }
        }
        printf("call %s %zu %zu\n", k->fn, k->size, k->count);
    }
    if (signal_profile != NULL) {
        char moved[4096];
        snprintf(moved, sizeof moved, "%s.signal", signal_profile);
        if (raise(SIGUSR2) != 0 || rename(signal_profile, moved) != 0) {
            perror("signal flush");
            return 1;
        }
        p_memcpy(dst, src, 7);
        printf("call memcpy 7 1\n");
    }
    free(src);
    free(dst);
    return 0;
}
