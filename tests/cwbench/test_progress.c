/* SPDX-License-Identifier: MIT */
/* Unit tests for programs/cwbench/base/progress.c on a simulated clock: the
 * sweeps a real run would make, driven cell by cell with made-up true
 * costs, and the ETA checked against the time really left. The case that
 * motivated the per-class ETA: `cwbench sweep --max-size 256K --samples 5
 * --states hot,cold --routines cw_memcpy,glibc_memcpy` said "50% after 4 s,
 * ETA 4 s" and took 41 s (its 204 hot cells took 4 s, its 204 cold ones
 * 37 s). */
#include "../test_check.h"
#include "base/progress.h"
#include "engine/estimate.h"
#include "engine/measure.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>



static double fake_now;

static double fake_clock(void)
{
    return fake_now;
}

typedef double (*cost_fn)(enum cwb_state st, size_t size);

/* The reported run: hot cells 4 s / 204, cold cells 37 s / 204, alike. */
static double flat_cost(enum cwb_state st, size_t size)
{
    (void)size;
    return st == CWB_COLD ? 37.0 / 204 : 4.0 / 204;
}

/* The shape measured on an AMD EPYC guest (cold / hot: 17x at 64 B, 11x at
 * 1 KiB, 7x at 4 KiB, 6x at 64 KiB, 2.2x at 256 KiB), hot cells 10 ms. */
static double measured_cost(enum cwb_state st, size_t size)
{
    static const struct { size_t size; double ratio; } pts[] = {
        {0, 17}, {64, 17}, {1024, 11}, {4096, 7}, {65536, 6}, {262144, 2.2}};
    double hot = 0.010;
    if (st == CWB_HOT)
        return hot;
    if (st == CWB_RANDOM)
        return hot * 1.5;
    size_t i = 1;
    while (i + 1 < sizeof pts / sizeof pts[0] && pts[i].size < size)
        i++;
    double f = (double)(size - pts[i - 1].size) / (double)(pts[i].size - pts[i - 1].size);
    if (size < pts[i - 1].size)
        f = 0;
    if (f > 1)
        f = 1;
    return hot * (pts[i - 1].ratio + f * (pts[i].ratio - pts[i - 1].ratio));
}

/* A machine three times slower than the reported one, all states alike. */
static double slow_cost(enum cwb_state st, size_t size)
{
    return 3 * flat_cost(st, size);
}

/* A cold state costing twice the reported one, hot the same. */
static double cold_heavy_cost(enum cwb_state st, size_t size)
{
    return st == CWB_COLD ? 2 * flat_cost(st, size) : flat_cost(st, size);
}

/* Drives the progress module as sweep.c does (a plan, a phase per state,
 * a step per cell) and checks every ETA once 10% of the true time has
 * passed: within a factor 2 of the time really left. */
static void simulate(const char *name, const enum cwb_state *st, size_t nst, size_t pairs,
                     cost_fn cost)
{
    size_t sizes[CWB_SWEEP_DEFAULT_SIZES], nrt = 2;
    /* the sizes `cwbench sweep --max-size 256K` measures */
    size_t nsz = cwb_sweep_default_sizes(sizes, (size_t)256 << 10);
    int samples = 5;
    double total = 0, state_ms[3] = {0, 0, 0}, plan = 0;
    for (size_t si = 0; si < nst; si++)
        for (size_t zi = 0; zi < nsz; zi++) {
            size_t reps = st[si] == CWB_RANDOM ? 1 : pairs;
            state_ms[si] += cwb_progress_cell_ms(st[si], sizes[zi], nrt, samples) * (double)reps;
            total += cost(st[si], sizes[zi]) * (double)reps;
        }
    for (size_t si = 0; si < nst; si++)
        plan += state_ms[si];
    fake_now = 1000;
    cwb_progress_plan(plan);
    double start = fake_now, worst_lo = INFINITY, worst_hi = 0, tlo = INFINITY, thi = 0;
    size_t checked = 0;
    for (size_t si = 0; si < nst; si++) {
        static const char *const phase[3] = {"sweep hot", "sweep cold", "sweep random"};
        double done_ms = 0;
        cwb_progress_begin_items(phase[st[si]], (size_t)state_ms[si],
                                 st[si] == CWB_RANDOM ? nsz : nsz * pairs);
        for (size_t ai = 0; ai < (st[si] == CWB_RANDOM ? 1 : pairs); ai++) {
            for (size_t zi = 0; zi < nsz; zi++) {
                fake_now += cost(st[si], sizes[zi]);
                done_ms += cwb_progress_cell_ms(st[si], sizes[zi], nrt, samples);
                cwb_progress_step((size_t)done_ms);
                double elapsed = fake_now - start, left = total - elapsed;
                if (elapsed < 0.1 * total || left < 1e-9)
                    continue;
                /* From 10% of the time on: the time left within 2x while
                 * 10% of it is left, the end time within 2x to the last
                 * cell (seconds before the end, a factor means little). */
                double eta = cwb_progress_eta(), r = eta / left, rt = (elapsed + eta) / total;
                checked++;
                if (left >= 0.1 * total) {
                    worst_lo = r < worst_lo ? r : worst_lo;
                    worst_hi = r > worst_hi ? r : worst_hi;
                }
                if (!(rt >= 0.5 && rt <= 2.0) || (left >= 0.1 * total && !(r >= 0.5 && r <= 2.0))) {
                    cwt_failures++;
                    fprintf(stderr, "%s: at %.1f of %.1f s the ETA said %.1f s, %.1f s were left\n",
                            name, elapsed, total, eta, left);
                    return;
                }
                tlo = rt < tlo ? rt : tlo;
                thi = rt > thi ? rt : thi;
            }
        }
        cwb_progress_end();
    }
    cwb_progress_plan(0);
    printf("%-34s %6.1f s, %3zu ETAs: ETA / time left %.2f..%.2f, end time / true %.2f..%.2f\n",
           name, total, checked, worst_lo, worst_hi, tlo, thi);
    CWT_EXPECT(checked > 0);
}

/* The line a log gets: the share of the time, not of the cells. */
static void test_line(void)
{
    char buf[4096];
    FILE *f = fmemopen(buf, sizeof buf, "w");
    CWT_EXPECT(f != NULL);
    if (!f)
        return;
    cwb_progress_set_output(f, 0);
    fake_now = 50;
    cwb_progress_plan(300);
    cwb_progress_begin("sweep hot", 100);
    fake_now += 4;
    cwb_progress_step(100);
    cwb_progress_end();
    cwb_progress_begin("sweep cold", 200);
    fake_now += 11; /* a log line every 10 s: this one prints */
    cwb_progress_step(10);
    cwb_progress_end();
    cwb_progress_plan(0);
    fclose(f);
    cwb_progress_set_output(NULL, 0);
    printf("log: %s", buf);
    CWT_EXPECT(strstr(buf, "cwbench: [sweep hot] starting\n") != NULL);
    /* 10 cold units took 11 s: the 190 left take 209 s, 224 s in all */
    CWT_EXPECT(strstr(buf, "cwbench: [sweep cold] 6% after 15 s, ETA 209 s\n") != NULL);
}

static void test_no_plan(void)
{
    /* A phase without a plan is its own plan; nothing done, no ETA. */
    fake_now = 10;
    cwb_progress_set_quiet(1);
    cwb_progress_begin("a/b", 100);
    CWT_EXPECT(isnan(cwb_progress_eta()));
    fake_now += 2;
    cwb_progress_step(25);
    CWT_EXPECT(fabs(cwb_progress_eta() - 6.0) < 1e-9);
    cwb_progress_end();
    /* The next phase starts a plan of its own. */
    cwb_progress_begin("dist", 10);
    CWT_EXPECT(isnan(cwb_progress_eta()));
    cwb_progress_end();
    cwb_progress_set_quiet(0);
}

int main(void)
{
    cwb_progress_set_clock(fake_clock);
    test_line();
    test_no_plan();
    cwb_progress_set_quiet(1);
    const enum cwb_state hc[] = {CWB_HOT, CWB_COLD}, hcr[] = {CWB_HOT, CWB_COLD, CWB_RANDOM};
    simulate("reported sweep (hot,cold)", hc, 2, 4, flat_cost);
    simulate("measured shape (hot,cold)", hc, 2, 4, measured_cost);
    simulate("measured shape (hot,cold,random)", hcr, 3, 4, measured_cost);
    simulate("3x slower machine", hc, 2, 4, slow_cost);
    simulate("cold twice the reported", hc, 2, 4, cold_heavy_cost);
    simulate("one offset pair", hc, 2, 1, flat_cost);
    if (cwt_failures) {
        fprintf(stderr, "test_progress: %ld check(s) failed\n", cwt_failures);
        return 1;
    }
    puts("test_progress: all checks passed");
    return 0;
}
