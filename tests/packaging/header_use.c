/* SPDX-License-Identifier: MIT */
/* Compiled by header_flags.sh with every warning a user might turn on:
 * the header must be self-contained (included first, and twice) and every
 * declaration and the inline fast path must be warning-free when used. */
#include <cachewise.h>
#include <cachewise.h>

int cw_header_use(void *dst, const void *src, size_t n);

int cw_header_use(void *dst, const void *src, size_t n)
{
    unsigned char small[16] = {0};
    const struct cw_info *info = cw_get_info();
    int bad = 0;
    /* the header's inline fast path: constant 4, 8, 16 bytes, and a variable size */
    cw_memcpy_flushcache(small, src, 4);
    cw_memcpy_flushcache(small, src, 8);
    cw_memcpy_flushcache(small, src, 16);
    cw_memcpy_flushcache(dst, src, n);
    cw_drain();
    bad |= cw_memcpy(dst, src, n) != dst;
    bad |= cw_memmove(dst, src, n) != dst;
    bad |= cw_memcpy_nt(dst, src, n) != dst;
    bad |= cw_memcpy_flushcache_fn(dst, src, n) != dst;
    bad |= cw_memcpy_persist(dst, src, n) != dst;
    bad |= cw_copy(dst, src, n, CW_DST_NOREUSE | CW_SRC_NOREUSE) != dst;
    bad |= cw_copy(dst, src, n, CW_PERSIST) != dst;
    bad |= cw_copy_safe(dst, src, n, CW_ZERO_TAIL | CW_DST_REUSE) != 0;
    bad |= cw_safe_init() != 0;
    bad |= cw_safe_handle_fault(0, NULL, NULL) != 0;
    bad |= cw_impl_select(cw_impl_name()) != 0;
    bad |= cw_impl_list()[0] == NULL;
    bad |= info->n_errors > CW_INFO_MAX_ERRORS || info->n_settings < 0;
    bad |= cw_version()[0] != '0' + CW_VERSION_MAJOR;
    bad |= CW_VERSION_MINOR < 0 || CW_VERSION_PATCH < 0;
    bad |= cw_check_version(CW_VERSION_MAJOR, CW_VERSION_MINOR) != 0;
    bad |= cw_info_size() < sizeof *info;
    /* the inline cw_memcpy/cw_memmove: constant sizes inside and just past
     * the inline range, an overlapping move, n == 0 with NULL (the library's
     * call, no builtin given NULL), and the function itself */
    bad |= cw_memcpy(small, src, 8) != small;
    bad |= cw_memcpy(small, src, sizeof small) != small;
    bad |= cw_memcpy(dst, src, 32) != dst;
    bad |= cw_memcpy(dst, src, 33) != dst;
    bad |= cw_memmove(small + 1, small, 15) != small + 1;
    bad |= cw_memmove(dst, src, 1) != dst;
    bad |= cw_memmove(dst, src, 31) != dst;
    bad |= cw_memcpy(NULL, NULL, 0) != NULL;
    bad |= cw_memmove(NULL, NULL, 0) != NULL;
    bad |= (cw_memcpy)(dst, src, 8) != dst;
    bad |= CW_SYSTEM_TUNING_FILE[0] != '/';
    bad |= small[0] != 0 && CW_SETTING_VALUE_LEN == 0 && CW_INFO_ERROR_LEN == 0;
    return bad;
}
