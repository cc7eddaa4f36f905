/* SPDX-License-Identifier: MIT */
/* Uses the installed header and library the way an application would. */
#include <cachewise.h>
#include <stdio.h>
#include <string.h>

int main(void)
{
    char src[64] = "installed cachewise works", dst[64] = {0};
    if (cw_copy(dst, src, sizeof src, CW_DST_REUSE) != dst || strcmp(dst, src) != 0) {
        fprintf(stderr, "consumer: copy failed\n");
        return 1;
    }
    printf("consumer: %s (cachewise %s, %s)\n", dst, cw_version(), cw_impl_name());
    return 0;
}
