/* SPDX-License-Identifier: MIT */
/* What a sweep cell costs, for progress plans (base/progress.h): the
 * ETA's estimate before anything has been measured. */
#include <math.h>

#include "engine/estimate.h"
#include "engine/measure.h"

double cwb_progress_cell_ms(enum cwb_state st, size_t size, size_t nrt, int samples)
{
    /* A sample: the calibration grows a batch until it settles within 2%
     * or lasts the 1 ms cap, and on a shared machine it seldom settles,
     * so about 0.75 ms; a copy longer than that is one call a batch. Per
     * routine, the samples and about four batches of calibration; the
     * poisoning and checking around each batch add about 40% (hot cells
     * on an AMD EPYC guest: 7-20 ms for 2 routines x 5 samples). */
    double batch = 0.75e-3, call = (double)size / 20e9;
    if (call > batch)
        batch = call;
    double hot = (double)nrt * ((double)samples + 4.0) * batch * 1.4 * 1e3;
    if (st == CWB_COLD) {
        /* Each cold call has its own slot, poisoned and checked from DRAM
         * outside the timed region: the small copies pay that many times
         * per batch. Measured against hot cells on the same guest: 15-25x
         * at 64 B, 11x at 1 KiB, 6-9x at 4 KiB, 4-9x at 64 KiB, 2-3x from
         * 256 KiB. */
        return hot * (1.0 + 16.0 / (1.0 + sqrt((double)size / 2048.0)));
    }
    if (st == CWB_RANDOM)
        return hot * 1.6; /* a pilot round and a fresh sequence per batch */
    return hot;
}

size_t cwb_sweep_default_sizes(size_t *s, size_t max)
{
    size_t n = 0;
    for (size_t v = 0; v < 64; v += 4)
        s[n++] = v;
    for (size_t v = 64; v < 512; v += 32)
        s[n++] = v;
    for (size_t v = 512; v <= 4096; v += 256)
        s[n++] = v;
    for (size_t v = 8192; v <= ((size_t)256 << 20); v *= 2)
        s[n++] = v;
    size_t k = 0;
    for (size_t i = 0; i < n; i++)
        if (s[i] <= max)
            s[k++] = s[i];
    return k;
}
