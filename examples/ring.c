/* SPDX-License-Identifier: MIT */
/*
 * ring: a single-producer, single-consumer message ring, where the copy hint
 * depends on who reads a slot next.
 *
 *   - Another core reads it soon (a consumer thread polling the ring): copy
 *     with CW_DST_REUSE. The message is then in the caches when the consumer
 *     looks, one cache-to-cache transfer per line at worst. Streaming stores
 *     would be wrong here, although the producer itself never reads the slot
 *     again: they send every line to DRAM, and the consumer, a microsecond
 *     later, takes a miss to DRAM for each of them.
 *   - Nothing on the CPU reads it soon (a device fetches the ring by DMA, a
 *     network card's send ring or a disk queue; or a CPU drains it only much
 *     later, after many other things have passed through the caches): copy
 *     with CW_DST_NOREUSE. The streaming stores keep the messages from
 *     evicting the producer's own working set, and the copy is fenced on
 *     return, so publishing the slot afterwards is safe.
 *   - 0 (auto) decides by size alone: messages this small are never
 *     streamed, which is right only for the first case.
 *
 * Both readers are run here, each on every message, and each message is
 * checked by the consumer. Publishing a slot: the copy, then a release store
 * of the head. That order holds for streaming stores too only because
 * cw_copy() with CW_DST_NOREUSE ends with a store fence; after
 * cw_memcpy_flushcache(), which does not fence, cw_drain() would be needed
 * before the release store.
 *
 * usage: ring [MESSAGES]   (default 20000)
 * Exit status: 0 when every message arrived intact and in order, 1 otherwise.
 */
#define _POSIX_C_SOURCE 200809L
#include <cachewise.h>

#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SLOTS 64   /* a power of two */
#define MSG 2048   /* bytes per slot */

enum reader {
    READER_CPU_SOON, /* a consumer thread polls the ring */
    READER_LATER,    /* a device, or a consumer that drains the ring in batches */
};

/* The hint for the copy into a slot, by who reads the slot next. */
static unsigned hint_for(enum reader r)
{
    return r == READER_CPU_SOON ? CW_DST_REUSE : CW_DST_NOREUSE;
}

struct ring {
    /* head and tail in lines of their own: the producer writes one, the
     * consumer the other, and sharing a line would bounce it between them */
    _Alignas(64) atomic_size_t head; /* messages published */
    _Alignas(64) atomic_size_t tail; /* messages consumed */
    _Alignas(64) unsigned char slot[SLOTS][MSG];
};

struct run {
    struct ring *ring;
    enum reader reader;
    size_t messages;
    size_t bad; /* messages the consumer found damaged or out of order */
};

/* Message i: its number, then bytes derived from it. */
static void make_message(size_t i, unsigned char *m)
{
    memcpy(m, &i, sizeof i);
    for (size_t k = sizeof i; k < MSG; k++)
        m[k] = (unsigned char)(i * 131 + k * 17);
}

static void *consumer(void *arg)
{
    struct run *r = arg;
    struct ring *q = r->ring;
    unsigned char want[MSG];
    for (size_t i = 0; i < r->messages; i++) {
        /* READER_LATER stands for a reader that comes only when the whole
         * ring is waiting (a device's doorbell, a periodic flusher), then
         * drains it. */
        size_t need = 1;
        if (r->reader == READER_LATER && i % SLOTS == 0)
            need = r->messages - i < SLOTS ? r->messages - i : SLOTS;
        while (atomic_load_explicit(&q->head, memory_order_acquire) - i < need)
            sched_yield();
        make_message(i, want);
        if (memcmp(q->slot[i % SLOTS], want, MSG) != 0)
            r->bad++;
        atomic_store_explicit(&q->tail, i + 1, memory_order_release);
    }
    return NULL;
}

static int run_ring(struct ring *q, enum reader reader, size_t messages)
{
    struct run r = {q, reader, messages, 0};
    atomic_store(&q->head, 0);
    atomic_store(&q->tail, 0);
    pthread_t t;
    if (pthread_create(&t, NULL, consumer, &r) != 0) {
        fprintf(stderr, "ring: FAIL: pthread_create\n");
        return 1;
    }
    unsigned hint = hint_for(reader);
    unsigned char msg[MSG];
    for (size_t i = 0; i < messages; i++) {
        make_message(i, msg);
        /* wait for a free slot */
        while (i - atomic_load_explicit(&q->tail, memory_order_acquire) >= SLOTS)
            sched_yield();
        if (cw_copy(q->slot[i % SLOTS], msg, MSG, hint) == NULL) {
            fprintf(stderr, "ring: FAIL: cw_copy: %s\n", strerror(errno));
            exit(1);
        }
        atomic_store_explicit(&q->head, i + 1, memory_order_release);
    }
    pthread_join(t, NULL);
    printf("ring: %-34s hint %-14s %zu messages, %zu damaged\n",
           reader == READER_CPU_SOON ? "reader: another core, right away" : "reader: later, in batches",
           hint == CW_DST_REUSE ? "CW_DST_REUSE" : "CW_DST_NOREUSE", messages, r.bad);
    return r.bad != 0;
}

int main(int argc, char **argv)
{
    size_t messages = argc > 1 ? (size_t)strtoull(argv[1], NULL, 10) : 20000;
    if (messages == 0) {
        fprintf(stderr, "usage: ring [MESSAGES]\n");
        return 2;
    }
    struct ring *q = aligned_alloc(64, sizeof *q);
    if (q == NULL) {
        fprintf(stderr, "ring: FAIL: out of memory\n");
        return 1;
    }
    int rc = run_ring(q, READER_CPU_SOON, messages);
    rc |= run_ring(q, READER_LATER, messages);
    free(q);
    if (rc == 0)
        printf("ring: ok\n");
    return rc;
}
