// SPDX-License-Identifier: MIT
// The C++ side of header_flags.sh: the header included first (and twice)
// in a C++ translation unit, its declarations with C linkage, its types
// usable from C++, every warning on.
#include <cachewise.h>
#include <cachewise.h>

#include <cstddef>
#include <type_traits>

static_assert(std::is_standard_layout<cw_info>::value, "cw_info is shared with C");
static_assert(std::is_standard_layout<cw_setting>::value, "cw_setting is shared with C");

// C linkage: a pointer to the library's function has the C signature.
static void *(*const copy_fn)(void *, const void *, std::size_t) = cw_memcpy;

int cw_header_use_cxx(unsigned char *dst, const unsigned char *src, std::size_t n);

int cw_header_use_cxx(unsigned char *dst, const unsigned char *src, std::size_t n)
{
    unsigned char small[16] = {};
    int bad = 0;
    cw_memcpy_flushcache(small, src, 4);
    cw_memcpy_flushcache(small, src, 8);
    cw_memcpy_flushcache(small, src, 16);
    cw_memcpy_flushcache(dst, src, n);
    cw_drain();
    bad |= copy_fn(dst, src, n) != dst;
    bad |= cw_memmove(dst, src, n) != dst;
    bad |= cw_memcpy_nt(dst, src, n) != dst;
    bad |= cw_memcpy_persist(dst, src, n) != dst;
    bad |= cw_copy(dst, src, n, CW_DST_REUSE | CW_SRC_NOREUSE) != dst;
    bad |= cw_copy_safe(dst, src, n, CW_ZERO_TAIL) != 0;
    bad |= cw_safe_init() != 0;
    bad |= cw_safe_handle_fault(0, nullptr, nullptr) != 0;
    bad |= cw_impl_select(cw_impl_name()) != 0;
    bad |= cw_impl_list()[0] == nullptr;
    const cw_info *info = cw_get_info();
    bad |= info->n_errors > CW_INFO_MAX_ERRORS || info->settings == nullptr;
    bad |= cw_version()[0] != '0' + CW_VERSION_MAJOR;
    bad |= small[0] != 0 && CW_VERSION_MINOR + CW_VERSION_PATCH < 0;
    bad |= cw_check_version(CW_VERSION_MAJOR, CW_VERSION_MINOR) != 0;
    bad |= cw_info_size() < sizeof *info;
    // the inline cw_memcpy/cw_memmove (header_use.c says which cases)
    bad |= cw_memcpy(small, src, 8) != small;
    bad |= cw_memcpy(small, src, sizeof small) != small;
    bad |= cw_memcpy(dst, src, 32) != dst;
    bad |= cw_memcpy(dst, src, 33) != dst;
    bad |= cw_memmove(small + 1, small, 15) != small + 1;
    bad |= cw_memmove(dst, src, 1) != dst;
    bad |= cw_memmove(dst, src, 31) != dst;
    bad |= cw_memcpy(nullptr, nullptr, 0) != nullptr;
    bad |= cw_memmove(nullptr, nullptr, 0) != nullptr;
    bad |= (cw_memcpy)(dst, src, 8) != dst;
    return bad;
}
