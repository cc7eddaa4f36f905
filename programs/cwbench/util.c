/* Size formatting and parsing, and the progress line on stderr. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "bench.h"

const char *cwb_fmt_size(size_t n, char *buf, size_t cap)
{
    static const char *unit[] = {"B", "KiB", "MiB", "GiB", "TiB"};
    int u = 0;
    size_t whole = n;
    while (whole >= 1024 && u < 4 && whole % 1024 == 0) {
        whole /= 1024;
        u++;
    }
    if (whole >= 1024 * 10) {
        double v = (double)n;
        u = 0;
        while (v >= 1024 && u < 4) {
            v /= 1024;
            u++;
        }
        snprintf(buf, cap, "%.1f %s", v, unit[u]);
    } else {
        snprintf(buf, cap, "%zu %s", whole, unit[u]);
    }
    return buf;
}

int cwb_parse_size(const char *s, size_t *out)
{
    if (s == NULL || *s < '0' || *s > '9')
        return -1;
    errno = 0;
    char *end;
    unsigned long long v = strtoull(s, &end, 10);
    if (errno != 0)
        return -1;
    unsigned shift = 0;
    if (*end != '\0') {
        switch (*end) {
        case 'k': case 'K': shift = 10; break;
        case 'm': case 'M': shift = 20; break;
        case 'g': case 'G': shift = 30; break;
        case 'b': case 'B': shift = 0; break;
        default: return -1;
        }
        end++;
        if (shift != 0 && (strcasecmp(end, "iB") == 0 || strcasecmp(end, "B") == 0))
            end += strlen(end);
        if (*end != '\0')
            return -1;
    }
    if (shift != 0 && v > (~0ull >> shift))
        return -1;
    v <<= shift;
    if (v > (unsigned long long)SIZE_MAX)
        return -1;
    *out = (size_t)v;
    return 0;
}

/* ---- progress -------------------------------------------------------------- */

static struct {
    int on, shown;
    const char *phase;
    size_t total;
    double start, last;
} prog;

void cwb_progress_begin(const char *phase, size_t total)
{
    prog.on = isatty(2);
    prog.phase = phase;
    prog.total = total;
    prog.start = cwb_now();
    prog.last = 0;
    cwb_progress_step(0);
}

void cwb_progress_step(size_t done)
{
    if (!prog.on)
        return;
    double now = cwb_now();
    if (done != 0 && done < prog.total && now - prog.last < 0.2)
        return;
    prog.last = now;
    double el = now - prog.start;
    fflush(stdout);
    prog.shown = 1;
    if (done == 0 || prog.total == 0)
        fprintf(stderr, "\r\033[K[%s] starting", prog.phase);
    else
        fprintf(stderr, "\r\033[K[%s] %zu/%zu, ETA %.0f s", prog.phase, done, prog.total,
                el / (double)done * (double)(prog.total - done));
    fflush(stderr);
}

void cwb_progress_clear(void)
{
    if (prog.on && prog.shown) {
        fprintf(stderr, "\r\033[K");
        fflush(stderr);
        prog.shown = 0;
    }
}

void cwb_progress_end(void)
{
    if (prog.on)
        fprintf(stderr, "\r\033[K");
    prog.on = 0;
}
