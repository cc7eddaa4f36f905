/* SPDX-License-Identifier: MIT */
/* The embedding parent's program: one copy of each kind, checked. */
#include <cachewise.h>
#include <stdio.h>
#include <string.h>

int main(void)
{
    char src[256], dst[256];
    for (size_t i = 0; i < sizeof src; i++)
        src[i] = (char)(i * 7 + 1);
    memset(dst, 0, sizeof dst);
    cw_memcpy_persist(dst, src, sizeof src);
    if (memcmp(dst, src, sizeof src) != 0 || cw_copy_safe(dst, src, sizeof src, 0) != 0 ||
        memcmp(dst, src, sizeof src) != 0) {
        fprintf(stderr, "app: copy failed\n");
        return 1;
    }
    printf("app: embedded cachewise %s (%s) works\n", cw_version(), cw_impl_name());
    return 0;
}
