/* SPDX-License-Identifier: MIT */
/* One version everywhere: cw_version() is the header's CW_VERSION_* and the
 * CMake project's version (CWT_PROJECT_VERSION); cw_check_version() accepts
 * exactly the same major version with a minor version up to the library's,
 * leaving errno alone, and refuses everything else with ENOTSUP, before any
 * other call (it needs no initialisation); cw_info_size() is the size of
 * the struct cw_info this library fills. */
#include <limits.h>
#include <stddef.h>

#include "test_util.h"

static void want_refused(unsigned major, unsigned minor)
{
    errno = 0;
    int r = cw_check_version(major, minor);
    CWT_CHECK(r == -1 && errno == ENOTSUP,
              "cw_check_version(%u, %u) against %s: want -1/ENOTSUP, got %d/%d", major, minor,
              cw_version(), r, errno);
}

int main(void)
{
    const unsigned major = CW_VERSION_MAJOR, minor = CW_VERSION_MINOR;
    errno = 1234;
    CWT_CHECK(cw_check_version(major, minor) == 0 && errno == 1234,
              "cw_check_version(%u, %u), the header's own: refused, or errno changed", major,
              minor);
    for (unsigned m = 0; m <= minor; m++) {
        errno = 1234;
        CWT_CHECK(cw_check_version(major, m) == 0 && errno == 1234,
                  "cw_check_version(%u, %u) against %s refused", major, m, cw_version());
    }
    want_refused(major, minor + 1);
    want_refused(major, UINT_MAX);
    want_refused(major + 1, 0);
    want_refused(major + 1, minor);
    want_refused(UINT_MAX, minor);
    if (major > 0)
        want_refused(major - 1, minor);

    char want[48];
    snprintf(want, sizeof want, "%d.%d.%d", CW_VERSION_MAJOR, CW_VERSION_MINOR,
             CW_VERSION_PATCH);
    CWT_CHECK(strcmp(cw_version(), want) == 0, "cw_version() is \"%s\", the header says %s",
              cw_version(), want);
    CWT_CHECK(strcmp(cw_version(), CWT_PROJECT_VERSION) == 0,
              "cw_version() is \"%s\", the CMake project says %s", cw_version(),
              CWT_PROJECT_VERSION);

    CWT_CHECK(cw_info_size() == sizeof(struct cw_info),
              "cw_info_size() is %zu, sizeof(struct cw_info) %zu", cw_info_size(),
              sizeof(struct cw_info));
    /* the check the header documents, for the first release's last field */
    const struct cw_info *in = cw_get_info();
    CWT_CHECK(offsetof(struct cw_info, settings) + sizeof in->settings <= cw_info_size(),
              "cw_info_size() %zu ends before settings", cw_info_size());
    if (cwt_failures != 0)
        return 1;
    printf("ok: cachewise %s: header, project and library agree; cw_check_version and "
           "cw_info_size (%zu bytes)\n", cw_version(), cw_info_size());
    return 0;
}
