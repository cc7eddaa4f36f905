/* SPDX-License-Identifier: MIT */
/* __memcpy_chk / __memmove_chk / __mempcpy_chk with n > dstlen must abort
 * like glibc ("*** buffer overflow detected ***"); argv[1] picks which. A
 * correct call runs first so the entry point is known to work. With a
 * second argument "shim", the entry point must resolve to the shim (glibc's
 * own would abort just the same). */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

void *__memcpy_chk(void *dst, const void *src, size_t n, size_t dstlen);
void *__memmove_chk(void *dst, const void *src, size_t n, size_t dstlen);
void *__mempcpy_chk(void *dst, const void *src, size_t n, size_t dstlen);

typedef void *(*chk_fn)(void *, const void *, size_t, size_t);
static chk_fn volatile fns[] = {__memcpy_chk, __memmove_chk, __mempcpy_chk};

int main(int argc, char **argv)
{
    int which = argc > 1 ? argv[1][0] - '0' : 0;
    if (which < 0 || which > 2)
        return 2;
    Dl_info info;
    if (argc > 2 && strcmp(argv[2], "shim") == 0 &&
        (dladdr((void *)fns[which], &info) == 0 || info.dli_fname == NULL ||
         strstr(info.dli_fname, "cachewise-preload") == NULL)) {
        fprintf(stderr, "not interposed by the shim\n");
        return 4;
    }
    char src[32] = "0123456789abcdef0123456789abcdef", dst[16];
    fns[which](dst, src, 16, sizeof dst);
    if (memcmp(dst, src, 16) != 0)
        return 3;
    fprintf(stderr, "overflowing call next\n");
    fns[which](dst, src, 32, sizeof dst);
    fprintf(stderr, "no abort: the overflow went unnoticed\n");
    return 1;
}
