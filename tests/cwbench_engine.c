/* SPDX-License-Identifier: MIT */
/* cwbench measurement engine: a broken routine must be caught (wrong byte,
 * write before or after dst, nothing copied, NULL), a correct one measured
 * in every cache state, also with a cell per routine (cwb_measure_each);
 * the registry's routines copy right; size and offset-list parsing. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "test_check.h"
#include "base/format.h"
#include "cmd/align.h"
#include "cmd/common.h"
#include "engine/ceiling.h"
#include "engine/measure.h"
#include "engine/placement.h"
#include "engine/routines.h"
#include "platform/memory.h"



static void *good(void *d, const void *s, size_t n)
{
    return memcpy(d, s, n);
}

static void *wrong_last(void *d, const void *s, size_t n)
{
    memcpy(d, s, n);
    if (n)
        ((unsigned char *)d)[n - 1] ^= 0x80;
    return d;
}

static void *overrun(void *d, const void *s, size_t n)
{
    memcpy(d, s, n);
    ((unsigned char *)d)[n] = 0x55;
    return d;
}

static void *underrun(void *d, const void *s, size_t n)
{
    memcpy(d, s, n);
    ((unsigned char *)d)[-1] = 0x55;
    return d;
}

static void *nothing(void *d, const void *s, size_t n)
{
    (void)s;
    (void)n;
    return d;
}

static void *null_ret(void *d, const void *s, size_t n)
{
    memcpy(d, s, n);
    return NULL;
}

/* Where the timed call's return address was: page offset of the slot. */
static size_t spied_slot = SIZE_MAX;
static __attribute__((noinline)) void *stack_spy(void *d, const void *s, size_t n)
{
    spied_slot = ((uintptr_t)__builtin_frame_address(0) + sizeof(void *)) % 4096;
    return memcpy(d, s, n);
}

/* for_size: a broken function for 63-byte copies only */
static cwb_copy_fn broken_at_63(size_t n)
{
    return n == 63 ? wrong_last : NULL;
}

static const struct cwb_routine r_good = {"good", good, "memcpy", NULL, NULL, NULL};
static const struct cwb_routine r_spy = {"spy", stack_spy, "memcpy", NULL, NULL, NULL};
static const struct cwb_routine r_sized = {"sized", good, "memcpy", broken_at_63, NULL, NULL};
static const struct cwb_routine r_bad[] = {
    {"wrong_last", wrong_last, "", NULL, NULL, NULL}, {"overrun", overrun, "", NULL, NULL, NULL},
    {"underrun", underrun, "", NULL, NULL, NULL},     {"nothing", nothing, "", NULL, NULL, NULL},
    {"null_ret", null_ret, "", NULL, NULL, NULL},
};

static struct cwb_call calls[64];

static void spec_for(enum cwb_state st, size_t n, struct cwb_spec *sp)
{
    memset(sp, 0, sizeof *sp);
    sp->state = st;
    sp->size = n;
    sp->src_off = 3;
    sp->dst_off = 1;
    if (st == CWB_RANDOM) {
        for (size_t i = 0; i < 64; i++) {
            calls[i].n = n;
            calls[i].soff = (i * 37) % 4096;
            calls[i].doff = (i * 101) % 4096;
        }
        sp->calls = calls;
        sp->n_calls = 64;
        sp->region = 4096 + n;
    }
}

static int lines_meet(size_t a, size_t alen, size_t b, size_t blen)
{
    for (size_t i = a / 64; i <= (a + alen - 1) / 64; i++)
        for (size_t j = b / 64; j <= (b + blen - 1) / 64; j++)
            if (i % 64 == j % 64)
                return 1;
    return 0;
}

/* ASan puts redzones around the alloca that moves the stack, so there the
 * placement is only approximate (and no timing under ASan means anything). */
#if defined(__SANITIZE_ADDRESS__)
#define STACK_PLACED_EXACTLY 0
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define STACK_PLACED_EXACTLY 0
#endif
#endif
#ifndef STACK_PLACED_EXACTLY
#define STACK_PLACED_EXACTLY 1
#endif

/* The timed loops run with their stack at the chosen page offset: the
 * routine's return address lies in the 128 bytes below it, and by default
 * on no line of the page that the source or destination use. */
static void stack_tests(struct cwb_engine *e)
{
    const enum cwb_state states[] = {CWB_HOT, CWB_COLD, CWB_RANDOM};
    const size_t sizes[] = {1, 64, 256, 1000, 1800, 4096};
    const struct cwb_routine *one[1] = {&r_spy};
    for (size_t si = 0; si < 3; si++) {
        for (size_t zi = 0; zi < 6; zi++) {
            for (int forced = -1; forced <= 1024; forced += 1025) {
                struct cwb_spec sp;
                struct cwb_run run;
                spec_for(states[si], sizes[zi], &sp);
                e->stack_at = forced;
                size_t at = cwb_stack_offset(e, &sp);
                spied_slot = SIZE_MAX;
                CWT_CHECK(cwb_measure(e, &sp, one, 1, &run) == 0, "stack spy measured");
                cwb_run_free(&run);
                CWT_CHECK(at < 4096 && at % 16 == 0 && (forced < 0 || at == (size_t)forced),
                      "stack offset %zu (forced %d)", at, forced);
                size_t lo = (at + CWB_PAGE - CWB_STACK_WINDOW) % CWB_PAGE;
                CWT_CHECK(spied_slot != SIZE_MAX &&
                          (!STACK_PLACED_EXACTLY || (spied_slot - lo) % CWB_PAGE < CWB_STACK_WINDOW),
                      "%s %zu B: return address at page offset %zu, chosen %zu",
                      cwb_state_name(sp.state), sp.size, spied_slot, at);
                if (forced < 0 && sp.state != CWB_RANDOM && sp.size <= 1000) {
                    size_t src = (CWB_SRC_BASE + 3) % CWB_PAGE, dst = (CWB_DST_BASE + 1) % CWB_PAGE;
                    CWT_CHECK(!lines_meet(lo, CWB_STACK_WINDOW, src, sp.size) &&
                              !lines_meet(lo, CWB_STACK_WINDOW, dst, sp.size),
                          "%zu B: stack window at %zu meets a buffer", sp.size, lo);
                }
            }
        }
    }
    e->stack_at = -1;
}

static void engine_tests(void)
{
    struct cwb_engine e;
    CWT_CHECK(cwb_engine_init(&e, (size_t)4 << 20, 3, 1e-6, 7) == 0, "engine init");
    const enum cwb_state states[] = {CWB_HOT, CWB_COLD, CWB_RANDOM};
    const size_t sizes[] = {1, 63, 4096, 100000};
    for (size_t si = 0; si < 3; si++) {
        for (size_t zi = 0; zi < 4; zi++) {
            struct cwb_spec sp;
            spec_for(states[si], sizes[zi], &sp);
            const struct cwb_routine *rt[6] = {&r_good};
            for (size_t b = 0; b < 5; b++)
                rt[b + 1] = &r_bad[b];
            struct cwb_run runs[6];
            int rc = cwb_measure(&e, &sp, rt, 6, runs);
            CWT_CHECK(rc == -1, "%s size %zu: broken routines not reported", cwb_state_name(sp.state),
                  sp.size);
            CWT_CHECK(!runs[0].failed && runs[0].n == 3 && runs[0].bytes > 0 && runs[0].calls > 0,
                  "%s size %zu: good routine: failed=%d n=%zu err=%s", cwb_state_name(sp.state),
                  sp.size, runs[0].failed, runs[0].n, runs[0].err);
            for (size_t b = 1; b < 6; b++)
                CWT_CHECK(runs[b].failed && runs[b].n == 0 && strstr(runs[b].err, rt[b]->name),
                      "%s size %zu: %s not caught (n=%zu, err=%s)", cwb_state_name(sp.state),
                      sp.size, rt[b]->name, runs[b].n, runs[b].err);
            for (size_t b = 0; b < 6; b++)
                cwb_run_free(&runs[b]);
        }
    }
    /* The hot and cold loops time (and check) the routine's one-size
     * function where it has one: broken at 63 bytes, fine at 4096. */
    for (size_t si = 0; si < 2; si++) {
        const struct cwb_routine *sized[1] = {&r_sized};
        struct cwb_spec sp3;
        struct cwb_run run3;
        spec_for(states[si], 63, &sp3);
        CWT_CHECK(cwb_measure(&e, &sp3, sized, 1, &run3) == -1 && run3.failed,
              "%s: the one-size function was not the one timed", cwb_state_name(states[si]));
        cwb_run_free(&run3);
        spec_for(states[si], 4096, &sp3);
        CWT_CHECK(cwb_measure(&e, &sp3, sized, 1, &run3) == 0 && !run3.failed,
              "%s: for_size NULL did not fall back to fn (%s)", cwb_state_name(states[si]),
              run3.err);
        cwb_run_free(&run3);
    }
    /* A cell bigger than the buffers is refused, not overrun. */
    struct cwb_spec big;
    spec_for(CWB_HOT, (size_t)8 << 20, &big);
    const struct cwb_routine *one[1] = {&r_good};
    struct cwb_run run;
    CWT_CHECK(cwb_measure(&e, &big, one, 1, &run) == -1 && run.failed, "oversized cell accepted");
    cwb_run_free(&run);
    /* One routine at two alignments, interleaved: each side's own cell,
     * and a broken side is caught without failing the other. */
    for (size_t si = 0; si < 2; si++) {
        struct cwb_spec sp2[3];
        spec_for(states[si], 4096, &sp2[0]);
        sp2[0].src_off = 0;
        sp2[0].dst_off = 0;
        spec_for(states[si], 4096, &sp2[1]);
        sp2[1].src_off = 0;
        sp2[1].dst_off = 63;
        spec_for(states[si], 4096, &sp2[2]);
        sp2[2].dst_off = 4095;
        const struct cwb_routine *rt3[3] = {&r_good, &r_good, &r_bad[1]};
        struct cwb_run runs3[3];
        int rc = cwb_measure_each(&e, sp2, rt3, 3, runs3);
        CWT_CHECK(rc == -1 && runs3[2].failed && strstr(runs3[2].err, "overrun"),
              "%s: measure_each missed the overrun (%s)", cwb_state_name(states[si]),
              runs3[2].err);
        for (size_t b = 0; b < 2; b++)
            CWT_CHECK(!runs3[b].failed && runs3[b].n == 3 && runs3[b].bytes == 4096.0 * runs3[b].calls,
                  "%s side %zu: failed=%d n=%zu err=%s", cwb_state_name(states[si]), b,
                  runs3[b].failed, runs3[b].n, runs3[b].err);
        for (size_t b = 0; b < 3; b++)
            cwb_run_free(&runs3[b]);
    }
    /* A large offset must not let a hot cell run past the buffers. */
    struct cwb_spec edge;
    spec_for(CWB_HOT, e.pool - 8192, &edge);
    edge.dst_off = 4095;
    CWT_CHECK(cwb_measure(&e, &edge, one, 1, &run) == -1 && run.failed, "offset past the pool accepted");
    cwb_run_free(&run);
    struct cwb_ceiling c;
    cwb_measure_ceiling(&e, (size_t)1 << 20, &c);
    CWT_CHECK(c.read_gbps > 0 && c.write_gbps > 0 && c.ceiling_gbps <= c.read_gbps, "ceiling");
    stack_tests(&e);
    cwb_engine_free(&e);
}

/* Every registry routine against memcpy (a fill routine against memset
 * with CWB_FILL_BYTE), at sizes and offsets that cross each loop's head,
 * body and tail. */
static void registry_tests(void)
{
    size_t n_rt;
    const struct cwb_routine *rt = cwb_routines(&n_rt);
    CWT_CHECK(n_rt >= 8, "registry has %zu routines", n_rt);
    CWT_CHECK(cwb_routine_find("cw_memcpy") != NULL && cwb_routine_find("glibc_memcpy") != NULL &&
              cwb_routine_find("nope") == NULL && cwb_routine_find(NULL) == NULL,
          "cwb_routine_find");
    size_t cap = 70000;
    unsigned char *src = malloc(cap + 64), *dst = malloc(cap + 128), *ref = malloc(cap + 128);
    cwb_fill_pattern(src, cap + 64, 3);
    const size_t sizes[] = {0, 1, 4, 7, 8, 16, 31, 64, 127, 200, 255, 256, 300, 513, 4095, 65537};
    for (size_t r = 0; r < n_rt; r++) {
        for (size_t zi = 0; zi < sizeof sizes / sizeof sizes[0]; zi++) {
            for (int so = 0; so < 3; so++) {
                for (int dof = 0; dof < 3; dof++) {
                    size_t n = sizes[zi];
                    memset(dst, 0, cap + 128);
                    memset(ref, 0, cap + 128);
                    if (cwb_routine_fills(&rt[r])) /* cw_memset_*, glibc_memset, ... */
                        memset(ref + 64 + dof, CWB_FILL_BYTE, n);
                    else
                        memcpy(ref + 64 + dof, src + so, n);
                    void *ret = rt[r].fn(dst + 64 + dof, src + so, n);
                    if (ret == NULL && strcmp(rt[r].name, "cw_copy_safe") == 0)
                        continue; /* not implemented yet: measured as n/a */
                    CWT_CHECK(ret == dst + 64 + dof, "%s: return value", rt[r].name);
                    CWT_CHECK(memcmp(dst, ref, cap + 128) == 0, "%s: wrong bytes, n=%zu so=%d do=%d",
                          rt[r].name, n, so, dof);
                    /* the one-size function the timed loops call, where there is one */
                    cwb_copy_fn f = cwb_routine_fn(&rt[r], n);
                    if (f == rt[r].fn)
                        continue;
                    memset(dst, 0, cap + 128);
                    CWT_CHECK(f(dst + 64 + dof, src + so, n) == dst + 64 + dof &&
                              memcmp(dst, ref, cap + 128) == 0,
                          "%s: its %zu-byte function copies wrong", rt[r].name, n);
                }
            }
        }
    }
    free(src);
    free(dst);
    free(ref);
}

static void parse_tests(void)
{
    size_t v;
    char buf[32];
    CWT_CHECK(cwb_parse_size("4096", &v) == 0 && v == 4096, "4096");
    CWT_CHECK(cwb_parse_size("4K", &v) == 0 && v == 4096, "4K");
    CWT_CHECK(cwb_parse_size("64MiB", &v) == 0 && v == (64u << 20), "64MiB");
    CWT_CHECK(cwb_parse_size("1g", &v) == 0 && v == (1u << 30), "1g");
    CWT_CHECK(cwb_parse_size("0", &v) == 0 && v == 0, "0");
    CWT_CHECK(cwb_parse_size("", &v) != 0, "empty");
    CWT_CHECK(cwb_parse_size("-1", &v) != 0, "-1");
    CWT_CHECK(cwb_parse_size("4X", &v) != 0, "4X");
    CWT_CHECK(cwb_parse_size("4KB7", &v) != 0, "4KB7");
    CWT_CHECK(cwb_parse_size("99999999999999999999", &v) != 0, "overflow");
    CWT_CHECK(cwb_parse_size("99999999999999G", &v) != 0, "shift overflow");
    CWT_CHECK(strcmp(cwb_fmt_size(64, buf, sizeof buf), "64 B") == 0, "%s", buf);
    CWT_CHECK(strcmp(cwb_fmt_size(4096, buf, sizeof buf), "4 KiB") == 0, "%s", buf);
    CWT_CHECK(strcmp(cwb_fmt_size((size_t)256 << 20, buf, sizeof buf), "256 MiB") == 0, "%s", buf);
    CWT_CHECK(strcmp(cwb_fmt_size(1536, buf, sizeof buf), "1536 B") == 0, "%s", buf);
    const struct cwb_routine *out[CWB_MAX_ROUTINES];
    size_t n;
    CWT_CHECK(cwb_pick_routines("cw_memcpy,glibc_memcpy", NULL, out, &n) == 0 && n == 2, "pick");
    CWT_CHECK(cwb_pick_routines("cw_memcpy,bogus", NULL, out, &n) == 2, "pick unknown");
    CWT_CHECK(cwb_pick_routines("cw_memcpy,cw_memcpy", NULL, out, &n) == 2, "pick twice");
}

/* Offset lists (sweep --align/--src-off/--dst-off, --ab --a-off). The
 * rejected ones print their usage message on stderr, as they should. */
static void offset_tests(void)
{
    static struct cwb_aligns a;
    CWT_CHECK(cwb_parse_aligns("--align", "0:1-63", &a) == 0 && a.n == 63 && a.pair[0][0] == 0 &&
              a.pair[0][1] == 1 && a.pair[62][1] == 63, "0:1-63 gave %zu pairs", a.n);
    CWT_CHECK(cwb_parse_aligns("--align", "1-2:3-4,0:0", &a) == 0 && a.n == 5 &&
              a.pair[1][0] == 1 && a.pair[1][1] == 4 && a.pair[2][0] == 2 && a.pair[4][1] == 0,
          "1-2:3-4,0:0");
    CWT_CHECK(cwb_parse_aligns("--align", "0-63:0-63", &a) == 0 && a.n == 4096, "64x64");
    CWT_CHECK(cwb_parse_aligns("--align", "4095:4095", &a) == 0 && a.n == 1, "4095");
    static const char *const bad[] = {"", "0", "0:", ":1", "0:1-", "0:5-1", "0:4096", "-1:0",
                                      "0:0,", ",0:0", "0:0,0:0", "0:1,0:0-3", "0-63:0-64",
                                      "+1:0", "0:1 ", "0:1:2", "0:0x1", "0:99999999999"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        CWT_CHECK(cwb_parse_aligns("--align", bad[i], &a) == 2, "--align '%s' accepted", bad[i]);
    int v[CWB_MAX_OFF + 1];
    size_t n;
    CWT_CHECK(cwb_parse_offlist("--dst-off", "1-63", v, &n) == 0 && n == 63 && v[62] == 63, "1-63");
    CWT_CHECK(cwb_parse_offlist("--dst-off", "0,1,3,7-8", v, &n) == 0 && n == 5 && v[4] == 8, "list");
    CWT_CHECK(cwb_parse_offlist("--dst-off", "1,1", v, &n) == 2, "duplicate offset");
    CWT_CHECK(cwb_parse_offlist("--dst-off", "1:2", v, &n) == 2, "pair in offset list");
    CWT_CHECK(cwb_offsets_to_aligns(NULL, "1-63", &a) == 0 && a.n == 63 && a.pair[5][0] == 0 &&
              a.pair[5][1] == 6, "--dst-off 1-63");
    CWT_CHECK(cwb_offsets_to_aligns("0,1", "0-2", &a) == 0 && a.n == 6 && a.pair[3][0] == 1 &&
              a.pair[3][1] == 0, "src x dst");
    int s, d;
    CWT_CHECK(cwb_parse_pair("--a-off", "3:61", &s, &d) == 0 && s == 3 && d == 61, "pair");
    CWT_CHECK(cwb_parse_pair("--a-off", "0:1-2", &s, &d) == 2, "range as pair");
    CWT_CHECK(cwb_parse_pair("--a-off", "7", &s, &d) == 2, "lone offset as pair");
    CWT_CHECK(cwb_colw("1.0 ±2%", 12) == 13 && cwb_colw("abc", 5) == 5, "cwb_colw");
}

int main(void)
{
    parse_tests();
    offset_tests();
    registry_tests();
    engine_tests();
    if (cwt_failures) {
        fprintf(stderr, "%ld check(s) failed\n", cwt_failures);
        return 1;
    }
    printf("cwbench engine: all checks passed\n");
    return 0;
}
