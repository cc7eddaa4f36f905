/* SPDX-License-Identifier: MIT */
/* The interposable copy functions, reached through volatile pointers so the
 * compiler can neither inline nor specialise the calls: the test programs
 * must exercise whatever the dynamic linker bound (glibc or the shim). */
#ifndef CW_TEST_INTERPOSED_H
#define CW_TEST_INTERPOSED_H
#include <stddef.h>
#include <string.h>

void *__memcpy_chk(void *dst, const void *src, size_t n, size_t dstlen);
void *__memmove_chk(void *dst, const void *src, size_t n, size_t dstlen);
void *__mempcpy_chk(void *dst, const void *src, size_t n, size_t dstlen);

typedef void *(*copy_fn)(void *, const void *, size_t);
typedef void *(*chk_fn)(void *, const void *, size_t, size_t);

static copy_fn volatile p_memcpy = memcpy;
static copy_fn volatile p_memmove = memmove;
static copy_fn volatile p_mempcpy = mempcpy;
static chk_fn volatile p_memcpy_chk = __memcpy_chk;
static chk_fn volatile p_memmove_chk = __memmove_chk;
static chk_fn volatile p_mempcpy_chk = __mempcpy_chk;
#endif
