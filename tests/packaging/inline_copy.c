/* SPDX-License-Identifier: MIT */
/* Compiled to assembly by inline_copy.sh: cw_memcpy and cw_memmove of a
 * small constant size must leave no call in these functions (the header's
 * inline path), and a size past the inline range, or a variable one, must
 * still call the library. One function per case, so the script can read
 * each body alone. */
#include <cachewise.h>

void *copy8(void *dst, const void *src);
void *copy1(void *dst, const void *src);
void *copy32(void *dst, const void *src);
void *move8(void *dst, const void *src);
void *move31(void *dst, const void *src);
uint64_t load8(const void *src);
void *copy33(void *dst, const void *src);
void *move33(void *dst, const void *src);
void *copy_n(void *dst, const void *src, size_t n);

void *copy8(void *dst, const void *src)
{
    return cw_memcpy(dst, src, 8);
}

void *copy1(void *dst, const void *src)
{
    return cw_memcpy(dst, src, 1);
}

void *copy32(void *dst, const void *src)
{
    return cw_memcpy(dst, src, 32);
}

void *move8(void *dst, const void *src)
{
    return cw_memmove(dst, src, 8);
}

void *move31(void *dst, const void *src)
{
    return cw_memmove(dst, src, 31);
}

/* the idiom of a type-punning load: a copy into a local */
uint64_t load8(const void *src)
{
    uint64_t v;
    cw_memcpy(&v, src, sizeof v);
    return v;
}

void *copy33(void *dst, const void *src)
{
    return cw_memcpy(dst, src, 33);
}

void *move33(void *dst, const void *src)
{
    return cw_memmove(dst, src, 33);
}

void *copy_n(void *dst, const void *src, size_t n)
{
    return cw_memcpy(dst, src, n);
}
