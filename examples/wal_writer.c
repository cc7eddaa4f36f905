/* SPDX-License-Identifier: MIT */
/*
 * wal_writer: a write-ahead log on a file mapping.
 *
 * The writer appends records to a mapped log file and commits them in
 * batches; recovery reads the log back through cw_copy_safe(), because the
 * file may have been truncated under the mapping (a crashed rotation, an
 * administrator, another process), and then a plain read of a page past the
 * end of the file kills the reader with SIGBUS.
 *
 * Layout of the log file:
 *   offset 0: struct log_head (magic, committed tail), alone in its line
 *   offset 64: records, each a struct rec_head and its payload, padded to 8
 *
 * Which copy, and why:
 *   - Record bodies: cw_memcpy_flushcache(). A log is written once and read
 *     again only by recovery: nothing should stay dirty in the caches, and on
 *     persistent memory (a DAX file mapped with MAP_SYNC) this is also what
 *     makes the bytes durable once cw_drain() has run. No fence per record:
 *     one cw_drain() per batch.
 *   - The commit word (the tail): written only after the drain, so it can
 *     never become durable before the records it covers. A constant 8-byte
 *     cw_memcpy_flushcache() is one movnti inlined by the header; the drain
 *     after it completes the commit. cw_memcpy_persist() is the same pair in
 *     one call (used for the log head at creation).
 *   - On an ordinary file (page cache, not DAX) the flushes take the data out
 *     of the CPU caches but durability on disk still needs msync(), which the
 *     writer calls at the end. The copies are right on either kind of file.
 *
 * usage: wal_writer [DIR]   (the scratch log file is created in DIR, default
 *                            $TMPDIR or /tmp, and removed at the end)
 * Exit status: 0 when every check passed, 1 otherwise.
 */
#define _POSIX_C_SOURCE 200809L
#include <cachewise.h>

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#define LOG_SIZE ((size_t)1 << 20) /* 1 MiB log file */
#define LOG_MAGIC UINT64_C(0x4c41576573697763) /* "cwiseWAL" */
#define REC_MAGIC UINT32_C(0x31434552)          /* "REC1" */
#define FIRST_REC 64                            /* records start after the head's line */
#define N_RECORDS 3000
#define BATCH 16 /* records per commit */

struct log_head {
    uint64_t magic;
    uint64_t tail; /* end of the last committed record */
};

struct rec_head {
    uint32_t magic;
    uint32_t len; /* payload bytes */
    uint64_t seq; /* 1, 2, 3, ...: a record from an older run never passes */
    uint64_t sum; /* of seq, len and the payload */
};

static size_t pad8(size_t n) { return (n + 7) & ~(size_t)7; }

/* FNV-1a over the header fields and the payload. */
static uint64_t record_sum(uint64_t seq, uint32_t len, const unsigned char *p)
{
    uint64_t h = UINT64_C(0xcbf29ce484222325) ^ seq ^ ((uint64_t)len << 40);
    for (uint32_t i = 0; i < len; i++)
        h = (h ^ p[i]) * UINT64_C(0x100000001b3);
    return h;
}

/* Record seq's payload: 20..499 bytes, none of them zero, so a record that
 * the truncation cut (the kernel zeroes the file's last page beyond its
 * end) never checks out by accident. */
static uint32_t make_payload(uint64_t seq, unsigned char *p)
{
    uint32_t len = (uint32_t)(20 + (seq * 7919) % 480);
    for (uint32_t i = 0; i < len; i++)
        p[i] = (unsigned char)(1 + (seq * 31 + i * 7) % 255);
    return len;
}

/* Append one record at *tail; not yet committed. */
static int append(unsigned char *log, size_t *tail, uint64_t seq)
{
    unsigned char payload[512];
    uint32_t len = make_payload(seq, payload);
    size_t need = pad8(sizeof(struct rec_head) + len);
    if (*tail + need > LOG_SIZE)
        return -1;
    struct rec_head h = {REC_MAGIC, len, seq, record_sum(seq, len, payload)};
    cw_memcpy_flushcache(log + *tail + sizeof h, payload, len);
    cw_memcpy_flushcache(log + *tail, &h, sizeof h);
    *tail += need;
    return 0;
}

/* Commit everything appended so far: drain the records first, then write
 * and drain the tail. A crash between the two drains loses the batch but
 * never exposes a tail that points at records not yet durable. */
static void commit(unsigned char *log, size_t tail)
{
    uint64_t t = tail;
    cw_drain();
    cw_memcpy_flushcache(&((struct log_head *)(void *)log)->tail, &t, sizeof t);
    cw_drain();
}

/* Recovery: count the committed records that check out, in order. The log
 * is read through cw_copy_safe() into private memory: where the file was
 * truncated, the pages past its end raise SIGBUS, and cw_copy_safe() returns
 * how many bytes it could not copy instead of letting the signal kill the
 * process. *readable gets how many bytes the mapping still holds. */
static long recover(const unsigned char *map, unsigned char *copy, size_t *readable,
                    size_t *end)
{
    size_t missing = cw_copy_safe(copy, map, LOG_SIZE, 0);
    *readable = LOG_SIZE - missing;
    *end = FIRST_REC;
    struct log_head head;
    if (*readable < sizeof head)
        return 0;
    memcpy(&head, copy, sizeof head);
    if (head.magic != LOG_MAGIC)
        return -1;
    size_t limit = head.tail < *readable ? (size_t)head.tail : *readable;
    long n = 0;
    size_t off = FIRST_REC;
    while (off + sizeof(struct rec_head) <= limit) {
        struct rec_head h;
        memcpy(&h, copy + off, sizeof h);
        size_t next = off + pad8(sizeof h + h.len);
        if (h.magic != REC_MAGIC || h.seq != (uint64_t)n + 1 || next > limit ||
            off + sizeof h + h.len > limit ||
            record_sum(h.seq, h.len, copy + off + sizeof h) != h.sum)
            break;
        n++;
        off = next;
    }
    *end = off;
    return n;
}

static int fail(const char *what)
{
    fprintf(stderr, "wal_writer: FAIL: %s\n", what);
    return 1;
}

/* A system call failed: say which, with the system's message. */
static int fail_sys(const char *call)
{
    fprintf(stderr, "wal_writer: FAIL: %s: %s\n", call, strerror(errno));
    return 1;
}

int main(int argc, char **argv)
{
    const char *dir = argc > 1 ? argv[1] : getenv("TMPDIR");
    char path[4096];
    snprintf(path, sizeof path, "%s/cachewise-wal-XXXXXX", dir && *dir ? dir : "/tmp");
    int fd = mkstemp(path);
    if (fd < 0)
        return fail_sys("cannot create the log file");
    unlink(path); /* the mapping keeps it alive; nothing is left behind */
    if (ftruncate(fd, (off_t)LOG_SIZE) != 0)
        return fail_sys("ftruncate");
    unsigned char *log = mmap(NULL, LOG_SIZE, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    unsigned char *copy = malloc(LOG_SIZE);
    if (log == MAP_FAILED || copy == NULL)
        return fail_sys("mmap/malloc");

    /* Create the log: the head, made durable before any record. */
    struct log_head head = {LOG_MAGIC, FIRST_REC};
    cw_memcpy_persist(log, &head, sizeof head);

    /* Write and commit in batches; remember where each record ends. */
    static size_t rec_end[N_RECORDS + 1];
    size_t tail = FIRST_REC;
    uint64_t seq = 1;
    for (; seq <= N_RECORDS; seq++) {
        if (append(log, &tail, seq) != 0)
            break; /* log full */
        rec_end[seq] = tail;
        if (seq % BATCH == 0)
            commit(log, tail);
    }
    long written = (long)(seq - 1);
    written -= written % BATCH; /* the last partial batch was never committed */
    /* Appended but uncommitted records must not be recovered: leave them. */
    if (msync(log, LOG_SIZE, MS_SYNC) != 0)
        return fail_sys("msync");

    size_t readable, end;
    long n = recover(log, copy, &readable, &end);
    printf("wal_writer: %ld records committed, %ld recovered from the whole file\n", written, n);
    if (n != written || readable != LOG_SIZE)
        return fail("recovery of the intact log");

    /* Truncate the file in the middle of a committed record's payload, as a
     * crashed rotation might: 10 bytes into the payload of the record after
     * record written/2 (payloads have at least 20). The mapping still spans
     * 1 MiB: pages past the new end raise SIGBUS when touched. */
    long page = sysconf(_SC_PAGESIZE);
    long expect = written / 2;
    size_t cut = rec_end[expect] + sizeof(struct rec_head) + 10;
    if (ftruncate(fd, (off_t)cut) != 0)
        return fail_sys("ftruncate (shrink)");
    n = recover(log, copy, &readable, &end);
    /* Faults are page-granular: the page holding the new end of file stays
     * readable (zeroed past the end), and cw_copy_safe is exact to the byte
     * at the first page that faults. The records before the cut are intact;
     * the one it went through fails its checksum, and recovery stops there. */
    size_t expect_readable = (cut + (size_t)page - 1) / (size_t)page * (size_t)page;
    printf("wal_writer: truncated to %zu bytes: %zu bytes readable (want %zu), %zu not "
           "copied (SIGBUS), %ld records recovered (want %ld)\n",
           cut, readable, expect_readable, LOG_SIZE - readable, n, expect);
    if (readable != expect_readable)
        return fail("cw_copy_safe did not stop at the first page past the end of file");
    if (n != expect)
        return fail("recovery of the truncated log");

    /* Resume: grow the file back, commit the recovered end as the tail, and
     * append after it. The log must then hold exactly the recovered records
     * and the new ones. */
    if (ftruncate(fd, (off_t)LOG_SIZE) != 0)
        return fail_sys("ftruncate (grow)");
    tail = end;
    commit(log, tail);
    for (seq = (uint64_t)n + 1; seq <= (uint64_t)n + BATCH; seq++)
        if (append(log, &tail, seq) != 0)
            return fail("log full");
    commit(log, tail);
    long again = recover(log, copy, &readable, &end);
    printf("wal_writer: resumed: %ld records after appending %d\n", again, BATCH);
    if (again != n + BATCH || readable != LOG_SIZE)
        return fail("recovery after resuming");
    if (msync(log, LOG_SIZE, MS_SYNC) != 0)
        return fail_sys("msync");

    munmap(log, LOG_SIZE);
    close(fd);
    free(copy);
    printf("wal_writer: ok\n");
    return 0;
}
