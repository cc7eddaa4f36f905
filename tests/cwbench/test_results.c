/* SPDX-License-Identifier: MIT */
/* Unit tests for programs/cwbench/results/results.c and results_read.c: JSON
 * round trips, malformed JSON with line numbers, CSV, atomic writes.
 * With "compare ..." as arguments it runs cwb_cmd_compare instead, so the
 * compare CLI can be tested without the full cwbench. */
#include "../test_check.h"
#include "cmd/compare.h"
#include "results/results.h"

#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static char dir[] = "/tmp/cwb_test_results.XXXXXX";


static const char *tmp_path(const char *name)
{
    static char path[4][256];
    static int k;
    k = (k + 1) % 4;
    snprintf(path[k], sizeof path[k], "%s/%s", dir, name);
    return path[k];
}

static const char *write_file(const char *name, const char *text)
{
    const char *path = tmp_path(name);
    FILE *f = fopen(path, "wb");
    if (!f) {
        perror(path);
        exit(1);
    }
    fputs(text, f);
    fclose(f);
    return path;
}

static char *slurp(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    static char buf[1 << 16];
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    buf[n] = 0;
    fclose(f);
    return buf;
}

static int same_double(double a, double b)
{
    return (isnan(a) && isnan(b)) || memcmp(&a, &b, sizeof a) == 0;
}

static void fill(struct cwb_results *r)
{
    cwb_results_init(r);
    cwb_results_meta(r, "cpu", "AMD EPYC \"Milan\" \\ 2.45\tGHz\n");
    cwb_results_meta(r, "note", "caf\xc3\xa9 \x01");
    cwb_results_meta(r, "cpu", "replaced");
    struct cwb_cell p;
    memset(&p, 0, sizeof p);
    strcpy(p.routine, "cw_memcpy");
    strcpy(p.bench, "throughput");
    strcpy(p.state, "hot");
    strcpy(p.unit, "GB/s");
    p.size = 4096;
    p.src_off = 3;
    p.dst_off = -1;
    p.higher_is_better = 1;
    const double s[] = {12.5, 0.1, 1e-300, 1.7976931348623157e308, NAN, 5e-324, -0.0, 3};
    const double cpu[] = {1, 2, 3, 4, 5, 6, 7, 8};
    CWT_EXPECT(cwb_results_add(r, &p, s, cpu, 8) != NULL);
    strcpy(p.routine, "glibc, \"memcpy\"");
    strcpy(p.unit, "ns");
    p.higher_is_better = 0;
    p.size = (size_t)1 << 40;
    CWT_EXPECT(cwb_results_add(r, &p, s, NULL, 3) != NULL);
    p.size = 0;
    CWT_EXPECT(cwb_results_add(r, &p, NULL, NULL, 0) != NULL);  /* no samples */
}

static void test_roundtrip(void)
{
    struct cwb_results r, back;
    char err[512];
    fill(&r);
    CWT_EXPECT(r.n_meta == 2 && strcmp(cwb_results_meta_get(&r, "cpu"), "replaced") == 0);
    const char *path = tmp_path("r.json");
    CWT_EXPECT(cwb_results_write_json(&r, path, err, sizeof err) == 0);
    /* Overwriting an existing file goes through the same rename. */
    CWT_EXPECT(cwb_results_write_json(&r, path, err, sizeof err) == 0);
    cwb_results_init(&back);
    if (cwb_results_read_json(&back, path, err, sizeof err) != 0) {
        cwt_failures++;
        fprintf(stderr, "read back: %s\n", err);
    }
    /* The metadata comes back, and Google Benchmark's context beside it. */
    CWT_EXPECT(back.n_cells == 3);
    CWT_EXPECT(strcmp(cwb_results_meta_get(&back, "note"), "caf\xc3\xa9 \x01") == 0);
    CWT_EXPECT(strcmp(cwb_results_meta_get(&back, "cpu"), "replaced") == 0);
    CWT_EXPECT(cwb_results_meta_get(&back, "date") != NULL);
    CWT_EXPECT(cwb_results_meta_get(&back, "num_cpus") != NULL);
    CWT_EXPECT(strcmp(cwb_results_meta_get(&back, "cwbench_format_version"), "2") == 0);
    for (size_t i = 0; i < back.n_cells && i < r.n_cells; i++) {
        const struct cwb_cell *a = &r.cells[i], *b = &back.cells[i];
        CWT_EXPECT(strcmp(a->routine, b->routine) == 0 && strcmp(a->bench, b->bench) == 0);
        CWT_EXPECT(strcmp(a->state, b->state) == 0 && strcmp(a->unit, b->unit) == 0);
        CWT_EXPECT(a->size == b->size && a->src_off == b->src_off && a->dst_off == b->dst_off);
        CWT_EXPECT(a->higher_is_better == b->higher_is_better && a->n == b->n);
        CWT_EXPECT((a->cpu_samples == NULL) == (b->cpu_samples == NULL));
        for (size_t k = 0; k < a->n && k < b->n; k++) {
            CWT_EXPECT(same_double(a->samples[k], b->samples[k]));
            if (a->cpu_samples && b->cpu_samples)
                CWT_EXPECT(a->cpu_samples[k] == b->cpu_samples[k]);
        }
    }
    /* Reading into a filled set replaces its contents. */
    CWT_EXPECT(cwb_results_read_json(&back, path, err, sizeof err) == 0 && back.n_cells == 3);
    cwb_results_free(&back);
    cwb_results_free(&r);
    CWT_EXPECT(r.n_cells == 0 && r.cells == NULL && r.n_meta == 0);
    unlink(path);
}

static void test_whitespace(const char *datadir)
{
    char path[512], err[512];
    struct cwb_results r;
    cwb_results_init(&r);
    snprintf(path, sizeof path, "%s/spaced.json", datadir);
    if (cwb_results_read_json(&r, path, err, sizeof err) != 0) {
        cwt_failures++;
        fprintf(stderr, "spaced.json: %s\n", err);
    }
    CWT_EXPECT(r.n_cells == 2);
    if (r.n_cells == 2) {
        CWT_EXPECT(strcmp(r.cells[0].routine, "cw_memcpy_nt") == 0 && r.cells[0].n == 3);
        CWT_EXPECT(r.cells[0].samples[2] == -2.5e-3 && r.cells[0].size == 65536);
        CWT_EXPECT(strcmp(r.cells[1].state, "cold\xe2\x82\xac") == 0);  /* \u20ac */
        CWT_EXPECT(strcmp(r.cells[1].routine, "x\xf0\x9f\x98\x80/") == 0);  /* surrogates, \/ */
        CWT_EXPECT(r.cells[1].higher_is_better == 0 && r.cells[1].n == 0);
    }
    CWT_EXPECT(strcmp(cwb_results_meta_get(&r, "k"), "v") == 0);
    cwb_results_free(&r);
}

static void expect_error(const char *text, const char *suffix)
{
    char err[512], want[512];
    const char *path = write_file("bad.json", text);
    struct cwb_results r;
    fill(&r);
    snprintf(want, sizeof want, "%s%s", path, suffix);
    int rc = cwb_results_read_json(&r, path, err, sizeof err);
    CWT_EXPECT(r.n_cells == 0 && r.n_meta == 0 && r.cells == NULL);
    if (rc != -1 || strcmp(err, want) != 0) {
        cwt_failures++;
        fprintf(stderr, "for %s\n  got:  %s\n  want: %s\n", text, rc == -1 ? err : "(success)",
                want);
    }
    cwb_results_free(&r);
    unlink(path);
}

#define HEAD "{\"format\": \"cwbench-results\", \"version\": 1,\n"
#define CELL "{\"routine\": \"r\", \"size\": 8, "

static void test_malformed(void)
{
    expect_error("", ":1: empty file");
    expect_error(" \n\n", ":3: empty file");
    expect_error("[1, 2]", ":1: not a cwbench results file (expected '{')");
    expect_error("{\"format\": \"other\", \"cells\": []}",
                 ":1: not a cwbench results file (format is not \"cwbench-results\")");
    expect_error("{\"cells\": []}\n",
                 ":2: not a cwbench results file (no \"format\": \"cwbench-results\", no "
                 "\"benchmarks\")");
    expect_error("{\"context\": {}}", ":1: no \"benchmarks\" array");
    expect_error("{\"context\": {\"cwbench_format_version\": 3}, \"benchmarks\": []}",
                 ":1: unsupported cwbench format version 3 (this cwbench reads up to 2)");
    expect_error("{\"benchmarks\": [\n{\"name\": \"x\", \"real_time\": 1}]}",
                 ":2: benchmark \"x\" without \"real_time\" and \"time_unit\"");
    expect_error("{\"benchmarks\": [{\"real_time\": 1, \"time_unit\": \"ns\"}]}",
                 ":1: benchmark without \"name\"");
    expect_error("{\"benchmarks\": [{\"name\": \"x\", \"real_time\": 1, \"time_unit\": "
                 "\"ks\"}]}", ":1: unknown \"time_unit\" \"ks\"");
    expect_error("{\"benchmarks\": [3]}", ":1: expected a benchmark object");
    expect_error(HEAD "\"meta\": {}\n}", ":3: no \"cells\" array");
    expect_error(HEAD "\"cells\"\n\n []}", ":4: expected ':', found '['");
    expect_error(HEAD "\"meta\": {\n\"a\" \"b\"}, \"cells\": []}", ":3: expected ':', found '\"'");
    expect_error(HEAD "\"cells\": [],\n}", ":3: expected a string key");
    expect_error(HEAD "\"cells\": []} x", ":2: unexpected text after the end of the results");
    expect_error(HEAD "\"cells\": [\n" CELL "\"samples\": [1, 2,]}]}",
                 ":3: expected a number, found ']'");
    expect_error(HEAD "\"cells\": [\n" CELL "\"samples\": [1 2]}]}", ":3: expected ']', found '2'");
    expect_error(HEAD "\"cells\": [\n" CELL "\"samples\": [1.]}]}", ":3: malformed number");
    expect_error(HEAD "\"cells\": [\n" CELL "\"samples\": [1e999]}]}", ":3: number out of range");
    expect_error(HEAD "\"cells\": [\n" CELL "\"samples\": [NaN]}]}",
                 ":3: expected a number, found 'N'");
    expect_error(HEAD "\"cells\": [\n\n" CELL "\"n\": 3,\n \"samples\": [1, 2]}]}",
                 ":4: cell has \"n\": 3 but 2 samples");
    expect_error(HEAD "\"cells\": [\n" CELL "\n\"samples\": [1]},\n" CELL "\"x\": [1,,]}]}",
                 ":5: expected a value, found ','");  /* line count goes on */
    expect_error(HEAD "\"cells\": [\n" CELL "\"samples\": [1], \"cpu_samples\": [1, 2]}]}",
                 ":3: cell has 2 cpu_samples for 1 samples");
    expect_error(HEAD "\"cells\": [\n{\"size\": 8, \"samples\": []}]}", ":3: cell without \"routine\"");
    expect_error(HEAD "\"cells\": [\n" CELL "\"size\": -1, \"samples\": []}]}",
                 ":3: \"size\" must be an integer in [0, 9007199254740992]");
    expect_error(HEAD "\"cells\": [\n" CELL "\"src_off\": 1.5, \"samples\": []}]}",
                 ":3: \"src_off\" must be an integer in [-2147483648, 2147483647]");
    expect_error(HEAD "\"cells\": [{\"routine\": "
                 "\"0123456789012345678901234567890123456789012345678\"}]}",
                 ":2: \"routine\" longer than 47 characters");
    expect_error(HEAD "\"cells\": [{\"routine\": 5}]}", ":2: \"routine\" must be a string");
    expect_error(HEAD "\"cells\": [{\"routine\": \"a\nb\"}]}", ":2: control character in string");
    expect_error(HEAD "\"cells\": [{\"routine\": \"a\\u0000\"}]}", ":2: \\u0000 in string");
    expect_error(HEAD "\"cells\": [{\"routine\": \"\\ud800x\"}]}",
                 ":2: unpaired surrogate in \\u escape");
    expect_error(HEAD "\"cells\": [{\"routine\": \"\\q\"}]}", ":2: bad escape '\\q'");
    expect_error(HEAD "\"cells\": [{\"routine\": \"abc", ":2: unterminated string");
    expect_error(HEAD "\"cells\": [{\"higher_is_better\": 1}]}", ":2: expected true or false");
    expect_error(HEAD "\"version\": 2, \"cells\": []}",
                 ":2: unsupported version 2 (this cwbench reads version 1)");
    expect_error(HEAD "\"cells\": [], \"cells\": []}", ":2: duplicate \"cells\"");
    expect_error(HEAD "\"cells\": [3]}", ":2: expected a cell object");
    expect_error(HEAD "\"cells\": [\x01]}", ":2: expected a cell object");
    expect_error(HEAD "\"meta\": {}\x7f", ":2: expected '}', found byte 0x7f");
    expect_error(HEAD "\"meta\": {\"a\": 1}, \"cells\": []}", ":2: meta value \"a\" must be a string");
    expect_error(HEAD "\"cells\": [{\"routine\": \"r\"", ":2: expected '}', found end of file");
    expect_error(HEAD "\"x\": tru, \"cells\": []}", ":2: expected a value, found 't'");
    char deep[400];
    strcpy(deep, HEAD "\"x\": ");
    for (int i = 0; i < 100; i++)
        strcat(deep, "[");
    expect_error(deep, ":2: nested too deeply");

    char err[512];
    struct cwb_results r;
    cwb_results_init(&r);
    const char *missing = tmp_path("missing.json");
    CWT_EXPECT(cwb_results_read_json(&r, missing, err, sizeof err) == -1);
    CWT_EXPECT(strstr(err, "missing.json: cannot open: No such file or directory") != NULL);
}

/* What cwbench writes is Google Benchmark's schema: a context, one entry
 * per sample with real_time/cpu_time per operation, the aggregates. */
static void test_gbench_schema(void)
{
    struct cwb_results r;
    char err[512];
    cwb_results_init(&r);
    cwb_results_meta(&r, "cpu", "Some CPU");
    cwb_results_meta(&r, "caches_l1d_l2_l3", "49152 2097152 0");
    cwb_results_meta(&r, "seed", "7");
    struct cwb_cell p;
    memset(&p, 0, sizeof p);
    strcpy(p.routine, "cw_memcpy");
    strcpy(p.bench, "throughput");
    strcpy(p.state, "hot");
    strcpy(p.unit, "GB/s");
    p.size = 4096;
    p.higher_is_better = 1;
    const double gbps[] = {40.96, 20.48, 4.096}, cpu[] = {40.96, NAN, 4.096};
    CWT_EXPECT(cwb_results_add(&r, &p, gbps, cpu, 3) != NULL);
    strcpy(p.bench, "pollution");
    strcpy(p.unit, "fraction");
    const double frac[] = {0.5, -0.01, 0.7};
    CWT_EXPECT(cwb_results_add(&r, &p, frac, NULL, 3) != NULL);  /* no time: cwbench_cells */
    strcpy(p.bench, "dist");
    strcpy(p.unit, "calls/s");
    p.size = 100;
    const double cps[] = {1e8, 2e8};
    CWT_EXPECT(cwb_results_add(&r, &p, cps, NULL, 2) != NULL);
    const char *path = tmp_path("gb.json");
    CWT_EXPECT(cwb_results_write_json(&r, path, err, sizeof err) == 0);
    char *t = slurp(path);
    CWT_EXPECT(t != NULL);
    if (t != NULL) {
        CWT_EXPECT(strstr(t, "\"context\": {") && strstr(t, "\"benchmarks\": [") &&
              strstr(t, "\"cwbench_cells\": ["));
        CWT_EXPECT(strstr(t, "\"cpu_model\": \"Some CPU\"") && strstr(t, "\"seed\": 7"));
        CWT_EXPECT(strstr(t, "\"caches\": [{\"type\": \"Data\", \"level\": 1, \"size\": 49152}, "
                        "{\"type\": \"Unified\", \"level\": 2, \"size\": 2097152}]"));
        /* 4096 B at 40.96 GB/s: 100 ns a call; a NaN cpu sample takes the wall time */
        CWT_EXPECT(strstr(t, "\"name\": \"throughput/cw_memcpy/hot/4096\""));
        CWT_EXPECT(strstr(t, "\"real_time\": 100, \"cpu_time\": 100, \"time_unit\": \"ns\", "
                        "\"bytes_per_second\": 40960000000"));
        CWT_EXPECT(strstr(t, "\"real_time\": 200, \"cpu_time\": 200,"));
        CWT_EXPECT(strstr(t, "\"name\": \"throughput/cw_memcpy/hot/4096_median\""));
        CWT_EXPECT(strstr(t, "\"aggregate_name\": \"cv\", \"aggregate_unit\": \"percentage\""));
        CWT_EXPECT(strstr(t, "\"real_time\": 10, \"cpu_time\": 10, \"time_unit\": \"ns\", "
                        "\"bytes_per_second\": 10000000000, \"items_per_second\": 100000000"));
        CWT_EXPECT(strstr(t, "pollution/") == NULL);
    }
    struct cwb_results back;
    cwb_results_init(&back);
    CWT_EXPECT(cwb_results_read_json(&back, path, err, sizeof err) == 0);
    CWT_EXPECT(back.n_cells == 3);
    if (back.n_cells == 3) {
        CWT_EXPECT(strcmp(back.cells[1].bench, "pollution") == 0 && back.cells[1].n == 3);
        CWT_EXPECT(back.cells[0].n == 3 && back.cells[0].cpu_samples &&
              isnan(back.cells[0].cpu_samples[1]));
        CWT_EXPECT(back.cells[0].samples[2] == 4.096 && back.cells[2].cpu_samples == NULL);
        CWT_EXPECT(strcmp(back.cells[2].unit, "calls/s") == 0 && back.cells[2].samples[1] == 2e8);
    }
    cwb_results_free(&back);
    cwb_results_free(&r);
    unlink(path);

    /* Another program's Google Benchmark output: a cell of times (ns) per
     * name, aggregates left out. */
    path = write_file("other.json",
        "{\"context\": {\"date\": \"2015/03/17-18:40:25\", \"num_cpus\": 40},\n"
        " \"benchmarks\": [\n"
        "  {\"name\": \"BM_One\", \"iterations\": 1000, \"real_time\": 10, \"cpu_time\": 100,"
        " \"time_unit\": \"us\"},\n"
        "  {\"name\": \"BM_Two\", \"run_name\": \"BM_Two\", \"run_type\": \"iteration\","
        " \"real_time\": 9, \"cpu_time\": 90, \"time_unit\": \"ns\"},\n"
        "  {\"name\": \"BM_One\", \"real_time\": 12, \"cpu_time\": 120, \"time_unit\": \"us\"},\n"
        "  {\"name\": \"BM_One_mean\", \"run_name\": \"BM_One\", \"run_type\": \"aggregate\","
        " \"real_time\": 11, \"cpu_time\": 110, \"time_unit\": \"us\"}]}\n");
    cwb_results_init(&back);
    CWT_EXPECT(cwb_results_read_json(&back, path, err, sizeof err) == 0);
    CWT_EXPECT(back.n_cells == 2 && strcmp(cwb_results_meta_get(&back, "num_cpus"), "40") == 0);
    if (back.n_cells == 2) {
        CWT_EXPECT(strcmp(back.cells[0].routine, "BM_One") == 0 && back.cells[0].n == 2);
        CWT_EXPECT(back.cells[0].samples[1] == 12000 && back.cells[0].cpu_samples[0] == 100000);
        CWT_EXPECT(strcmp(back.cells[0].unit, "ns") == 0 && back.cells[0].higher_is_better == 0);
        CWT_EXPECT(strcmp(back.cells[1].routine, "BM_Two") == 0 && back.cells[1].samples[0] == 9);
    }
    cwb_results_free(&back);
    unlink(path);
}

static int count_entries(const char *d)
{
    DIR *dp = opendir(d);
    int n = 0;
    struct dirent *e;
    while (dp && (e = readdir(dp)))
        n += e->d_name[0] != '.';
    if (dp)
        closedir(dp);
    return n;
}

static void test_csv_and_atomic(void)
{
    struct cwb_results r;
    char err[512];
    fill(&r);
    const char *path = tmp_path("r.csv");
    CWT_EXPECT(cwb_results_write_csv(&r, path, err, sizeof err) == 0);
    char *text = slurp(path);
    CWT_EXPECT(text != NULL);
    if (text) {
        CWT_EXPECT(strncmp(text, "kind,bench,routine,state,size,src_off,dst_off,unit,higher_is_better,"
                            "index,value,cpu,n,mean,sd,cv,median,min,max,q1,q3\n", 108) == 0);
        int lines = 0, bad = 0;
        for (char *line = text; *line;) {
            char *nl = strchr(line, '\n');
            if (!nl)
                break;
            int commas = 0, quoted = 0;
            for (char *c = line; c < nl; c++) {
                quoted ^= *c == '"';
                commas += *c == ',' && !quoted;
            }
            bad += commas != 20;  /* rectangular: 21 columns on every row */
            lines++;
            line = nl + 1;
        }
        CWT_EXPECT(bad == 0);
        CWT_EXPECT(lines == 1 + (8 + 1) + (3 + 1) + (0 + 1));
        CWT_EXPECT(strstr(text, "sample,throughput,cw_memcpy,hot,4096,3,-1,GB/s,1,0,12.5,1,,,,,,,,,\n"));
        CWT_EXPECT(strstr(text, "sample,throughput,cw_memcpy,hot,4096,3,-1,GB/s,1,4,,5,,,,,,,,,\n"));
        CWT_EXPECT(strstr(text, ",\"glibc, \"\"memcpy\"\"\",hot,1099511627776,3,-1,ns,0,0,12.5,,"));
        CWT_EXPECT(strstr(text, "summary,throughput,\"glibc, \"\"memcpy\"\"\",hot,0,3,-1,ns,0,,,,0,,,,,,,,\n"));
    }
    /* Failures leave nothing behind: a missing directory, and a target
     * that is a directory (the rename fails after the data was written). */
    int before = count_entries(dir);
    CWT_EXPECT(cwb_results_write_json(&r, tmp_path("nodir/r.json"), err, sizeof err) == -1);
    CWT_EXPECT(strstr(err, "nodir/r.json: No such file or directory") != NULL);
    const char *sub = tmp_path("sub");
    CWT_EXPECT(mkdir(sub, 0755) == 0);
    CWT_EXPECT(cwb_results_write_json(&r, sub, err, sizeof err) == -1);
    CWT_EXPECT(strstr(err, "cannot write") != NULL && strstr(err, "sub:") != NULL);
    CWT_EXPECT(cwb_results_write_csv(&r, sub, err, sizeof err) == -1);
    CWT_EXPECT(count_entries(dir) == before + 1);  /* only sub itself */
    CWT_EXPECT(count_entries(sub) == 0);
    rmdir(sub);
    CWT_EXPECT(cwb_results_write_csv(&r, "", err, sizeof err) == -1);
    unlink(path);

    /* Metadata is capped, never overflows. */
    char k[16];
    for (int i = 0; i < 100; i++) {
        snprintf(k, sizeof k, "k%d", i);
        cwb_results_meta(&r, k, "v");
    }
    CWT_EXPECT(r.n_meta == CWB_MAX_META);
    cwb_results_free(&r);
}

int main(int argc, char **argv)
{
    if (argc >= 2 && strcmp(argv[1], "compare") == 0)
        return cwb_cmd_compare(argc - 1, argv + 1);
    if (argc < 2) {
        fprintf(stderr, "usage: test_results DATADIR | test_results compare A.json B.json\n");
        return 2;
    }
    if (!mkdtemp(dir)) {
        perror("mkdtemp");
        return 1;
    }
    test_roundtrip();
    test_whitespace(argv[1]);
    test_malformed();
    test_gbench_schema();
    test_csv_and_atomic();
    rmdir(dir);
    if (cwt_failures) {
        fprintf(stderr, "test_results: %ld check(s) failed\n", cwt_failures);
        return 1;
    }
    puts("test_results: all checks passed");
    return 0;
}
