/* SPDX-License-Identifier: MIT */
/* The program tests/secure/run.sh makes setuid root and runs as an
 * unprivileged user. Linked against libcachewise.so and
 * libcachewise-preload.so (as /etc/ld.so.preload would load the shim into a
 * setuid program): it makes copies through memcpy (the shim) and cw_memcpy
 * (the library), and prints what the library says is in force, one
 * "key value" line each, on stdout; then what cw_settings_apply() makes of
 * "nt_threshold = 8K" (its return value and errno, the threshold after). */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/auxv.h>

#include "cachewise.h"

int main(void)
{
    static unsigned char a[1 << 20], b[1 << 20];
    void *(*volatile copy)(void *, const void *, size_t) = memcpy;
    for (size_t n = 1; n <= sizeof a; n *= 2) {
        copy(b, a, n);
        cw_memcpy(a, b, n);
    }
    const struct cw_info *in = cw_get_info();
    printf("secure %lu\n", getauxval(AT_SECURE));
    printf("impl %s\nimpl_source %s\n", in->impl, in->impl_source);
    printf("nt_threshold %zu\nnt_threshold_source %s\n", in->nt_threshold,
           in->nt_threshold_source);
    printf("memcpy_entry %s\n", in->memcpy_entry);
    for (int i = 0; i < in->n_errors && i < CW_INFO_MAX_ERRORS; i++)
        printf("error %s\n", in->errors[i]);
    errno = 0;
    int r = cw_settings_apply("nt_threshold = 8K", NULL, 0);
    printf("apply %d %s\n", r, r == 0 ? "ok" : errno == EPERM ? "EPERM" : "other");
    printf("applied_nt_threshold %zu\n", in->nt_threshold);
    return 0;
}
