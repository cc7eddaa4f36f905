/* SPDX-License-Identifier: MIT */
/* Threads copying at once through the shim: a few long-lived workers with
 * random sizes and alignments, plus waves of short-lived threads (their
 * profile slots get recycled). Every copy is verified; the total number of
 * calls and bytes is printed as "calls N" / "bytes N" so the profile
 * merge can be checked exactly. */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef void *(*copy_fn)(void *, const void *, size_t);
static copy_fn volatile p_memcpy = memcpy;
static copy_fn volatile p_memmove = memmove;

#define WORKERS 4
#define ROUNDS 3000
#define WAVES 4
#define WAVE_THREADS 40
#define SHORT_CALLS 25
#define BUF (80 * 1024)

struct job {
    unsigned seed;
    int rounds;
    unsigned long calls, bytes, bad;
};

static void *work(void *arg)
{
    struct job *j = arg;
    unsigned char *src = malloc(BUF + 128), *dst = malloc(BUF + 128);
    if (!src || !dst) {
        j->bad++;
        return NULL;
    }
    uint64_t r = j->seed * 2654435761u + 1;
    for (size_t i = 0; i < BUF + 128; i++)
        src[i] = (unsigned char)(i ^ j->seed);
    for (int k = 0; k < j->rounds; k++) {
        r ^= r << 13;
        r ^= r >> 7;
        r ^= r << 17;
        size_t n = (r >> 8) % (r & 1 ? 300 : BUF), sa = (r >> 40) % 64, da = (r >> 50) % 64;
        dst[da + n] = 0x5A;
        (k & 2 ? p_memmove : p_memcpy)(dst + da, src + sa, n);
        j->calls++;
        j->bytes += n;
        if (dst[da + n] != 0x5A || (n && (dst[da] != src[sa] || dst[da + n - 1] != src[sa + n - 1]
                                          || dst[da + n / 2] != src[sa + n / 2])))
            j->bad++;
    }
    free(src);
    free(dst);
    return NULL;
}

int main(void)
{
    static struct job jobs[WORKERS + WAVE_THREADS];
    pthread_t t[WORKERS + WAVE_THREADS];
    unsigned long calls = 0, bytes = 0, bad = 0;
    for (int i = 0; i < WORKERS; i++) {
        jobs[i] = (struct job){.seed = (unsigned)i + 1, .rounds = ROUNDS};
        if (pthread_create(&t[i], NULL, work, &jobs[i]) != 0)
            return 1;
    }
    for (int w = 0; w < WAVES; w++) {
        for (int i = 0; i < WAVE_THREADS; i++) {
            struct job *j = &jobs[WORKERS + i];
            calls += j->calls;
            bytes += j->bytes;
            bad += j->bad;
            *j = (struct job){.seed = (unsigned)(100 + w * WAVE_THREADS + i),
                              .rounds = SHORT_CALLS};
            if (pthread_create(&t[WORKERS + i], NULL, work, j) != 0)
                return 1;
        }
        for (int i = 0; i < WAVE_THREADS; i++)
            pthread_join(t[WORKERS + i], NULL);
    }
    for (int i = 0; i < WORKERS; i++)
        pthread_join(t[i], NULL);
    for (int i = 0; i < WORKERS + WAVE_THREADS; i++) {
        calls += jobs[i].calls;
        bytes += jobs[i].bytes;
        bad += jobs[i].bad;
    }
    if (bad) {
        fprintf(stderr, "%lu bad copies\n", bad);
        return 1;
    }
    printf("calls %lu\nbytes %lu\n", calls, bytes);
    return 0;
}
