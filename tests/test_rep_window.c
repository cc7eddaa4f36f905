/* SPDX-License-Identifier: MIT */
/* The rep movsb window as the copy kernels decide it: for every runnable
 * x86 implementation and windows set with cw_settings_apply (on, empty,
 * one byte wide, rep_movsb_min above rep_movsb_max), the path the kernel
 * reports for sizes at and beside each edge is the one the settings'
 * documented meaning gives (docs/TUNING.md): rep movsb exactly when the
 * window is on, rep_movsb_min <= n <= rep_movsb_max and, in "aligned"
 * mode, both buffers are 64-byte aligned, in "align-dst-far" mode, the
 * destination is not 1-63 bytes past the source modulo 4 KiB. The kernels' path and their
 * copy share the one test (cwl_rep_movsb_wins), so this checks the test
 * the copies run. Without ERMS the window is switched off: never rep. */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "internal.h"
#include "test_util.h"

#if defined(__x86_64__)
#define KiB ((size_t)1 << 10)

struct window {
    const char *mode;
    size_t lo, hi;
};

/* The vector width of an x86 row, by its name. */
static size_t row_width(const char *impl)
{
    if (strncmp(impl, "avx512", 6) == 0)
        return 64;
    return strcmp(impl, "avx2") == 0 ? 32 : 16;
}

/* The kernels ask the window only at 9-12 vectors of the row (copied
 * outside it by the loop, or in the avx512-evex row's cw_memcpy by a
 * straight block) and above 16, never at the straight blocks' sizes, up
 * to 8 vectors and 13-16 (docs/TUNING.md, rep_movsb_min). */
static int loop_asks(size_t n, size_t vec)
{
    return n > 16 * vec || (n > 8 * vec && n <= 12 * vec);
}

static int expect_rep(const struct window *w, size_t vec, int erms, uintptr_t d, uintptr_t s,
                      size_t n)
{
    if (!erms || !loop_asks(n, vec) || strcmp(w->mode, "off") == 0 || n < w->lo || n > w->hi)
        return 0;
    if (strcmp(w->mode, "align-dst") == 0)
        return 1;
    if (strcmp(w->mode, "align-dst-far") == 0) {
        uintptr_t distance = (d - s) % 4096;
        return distance == 0 || distance > 63;
    }
    return ((d | s) & 63) == 0;
}

/* {dst, src}: aligned, each misaligned, both aligned elsewhere, and the
 * destination 1, 15, 16, 63 and 64 bytes past the source modulo 4 KiB and
 * 1 byte before it */
static const uintptr_t places[][2] = {
    {0x100000, 0x200000}, {0x100001, 0x200000}, {0x100000, 0x200005}, {0x100040, 0x200040},
    {0x100801, 0x200800}, {0x10100f, 0x200000}, {0x100010, 0x200000}, {0x10003f, 0x200000},
    {0x100840, 0x200800}, {0x100fff, 0x200000}};

/* cwi_memcpy_path for n at every place, against expect_rep */
static void check_size(const char *impl, const struct window *win, int erms, size_t n)
{
    for (size_t p = 0; p < sizeof places / sizeof places[0]; p++) {
        uintptr_t d = places[p][0], s = places[p][1];
        int path = cwi_memcpy_path((const void *)d, (const void *)s, n);
        int want = expect_rep(win, row_width(impl), erms, d, s, n);
        CWT_CHECK((path == CWI_PATH_REP) == want,
                  "%s, window %s %zu..%zu, n %zu, dst %#lx src %#lx: path %d, "
                  "rep movsb expected %s",
                  impl, win->mode, win->lo, win->hi, n, (unsigned long)d, (unsigned long)s, path,
                  want ? "yes" : "no");
    }
}
#endif

int main(void)
{
#if defined(__x86_64__)
    const struct cw_info *in = cw_get_info();
    int erms = in->erms;
    /* the last two from 129 B: every size of 8-16 vectors meets the window */
    static const struct window windows[] = {
        {"align-dst", 4 * KiB, 64 * KiB},   {"aligned", 4 * KiB, 64 * KiB},
        {"align-dst", 8 * KiB, 8 * KiB},    {"align-dst", 64 * KiB, 4 * KiB},
        {"aligned", 64 * KiB, 4 * KiB},     {"off", 4 * KiB, 64 * KiB},
        {"align-dst", 2 * KiB, 1024 * KiB}, {"align-dst", 129, 64 * KiB},
        {"aligned", 129, 64 * KiB},         {"align-dst-far", 4 * KiB, 64 * KiB},
        {"align-dst-far", 129, 64 * KiB},
    };
    int rows = 0;
    for (const char *const *impl = cw_impl_list(); *impl != NULL; impl++) {
        if (strcmp(*impl, "generic") == 0)
            continue; /* no rep movsb and no path of its own */
        CWT_CHECK(cw_impl_select(*impl) == 0, "cw_impl_select(%s)", *impl);
        rows++;
        size_t vec = row_width(*impl);
        for (size_t w = 0; w < sizeof windows / sizeof windows[0]; w++) {
            const struct window *win = &windows[w];
            char text[200], err[160];
            snprintf(text, sizeof text,
                     "nt_threshold = 64M\nrep_movsb = %s\nrep_movsb_min = %zu\n"
                     "rep_movsb_max = %zu\n",
                     win->mode, win->lo, win->hi);
            CWT_CHECK(cw_settings_apply(text, err, sizeof err) == 0, "apply: %s", err);
            size_t sizes[] = {2 * KiB,     win->lo - 1, win->lo,     win->lo + 1,
                              win->hi - 1, win->hi,     win->hi + 1, 3 * KiB * KiB};
            for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; k++)
                check_size(*impl, win, erms, sizes[k]);
            for (size_t n = 8 * vec; n <= 16 * vec; n++)
                check_size(*impl, win, erms, n);
        }
    }
    CWT_CHECK(cw_settings_restore() == 0, "cw_settings_restore");
    printf("test_rep_window: %d implementations, ERMS %s\n", rows, erms ? "yes" : "no");
#else
    printf("test_rep_window: no rep movsb on this architecture\n");
#endif
    return cwt_finish("test_rep_window");
}
