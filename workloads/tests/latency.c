/* tests/latency.c - unit tests of the latency histogram, clock, modes and sampler (wl_hist, wl_clock,
 * wl_latmode, wl_latency).
 * Always holds: every check compares against an independent computation (a sorted array of the
 * same samples, one histogram of all samples, the bucket formula's definition), so a broken
 * helper fails it; nothing is timed against a speed target. With `--quantiles FILE PHASE OP` it
 * instead prints "samples p50 p99 p99.9 max" (ns) of that phase and op from a file of phase
 * records, for workloads/tests/run's check of a real workload. */
#include "tcheck.h"
#include "wl_clock.h"
#include "wl_hist.h"
#include "wl_latency.h"
#include "wl_rng.h"

#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define N_SAMPLES 200000

static struct wl_hist *new_hist(void)
{
    struct wl_hist *h = calloc(1, sizeof *h);
    if (!h)
        abort();
    wl_hist_clear(h);
    return h;
}

/* A log-uniform value in [1, 2^34] ns: every bucket scale, from single ns to seconds. */
static uint64_t some_value(struct wl_rng *r)
{
    double u = (double)(wl_rng_next(r) >> 11) * 0x1.0p-53;
    return (uint64_t)exp(u * 34 * log(2.0)) + (wl_rng_next(r) & 1);
}

/* Every value lands in the bucket whose [lo, lo + width) holds it; width <= lo / 128 above 255;
 * buckets tile the line with no gap or overlap. */
static void test_buckets(void)
{
    struct wl_rng r;
    wl_rng_init(&r, 5, 0);
    int holds = 1, narrow = 1, tiles = 1;
    for (uint64_t k = 0; k < 2000000; k++) {
        uint64_t v = k < 1000000 ? k : some_value(&r) << (k % 7);
        uint32_t i = wl_hist_index(v);
        if (v >= (1ULL << 40))
            continue;
        holds &= wl_hist_lo(i) <= v && v < wl_hist_lo(i) + wl_hist_width(i);
        narrow &= wl_hist_width(i) == 1 || wl_hist_width(i) * 128 <= wl_hist_lo(i);
    }
    for (uint32_t i = 0; i + 1 < WL_HIST_BUCKETS; i++)
        tiles &= wl_hist_lo(i) + wl_hist_width(i) == wl_hist_lo(i + 1) && wl_hist_index(wl_hist_lo(i)) == i;
    TCHECK("hist: every value lies inside its bucket", holds);
    TCHECK("hist: a bucket is 1 ns wide below 256, at most 1/128 of its lower bound above", narrow);
    TCHECK("hist: buckets tile the axis (lo(i) + width(i) = lo(i+1))", tiles);
    TCHECK("hist: values past 2^40 ns go to the last bucket", wl_hist_index(~0ULL) == WL_HIST_BUCKETS - 1);
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

/* Quantiles within 0.4% (half a bucket) of the sorted array's sample of rank ceil(q n); count, sum, max exact. */
static void test_quantiles(void)
{
    static uint64_t v[N_SAMPLES];
    struct wl_hist *h = new_hist();
    struct wl_rng r;
    wl_rng_init(&r, 7, 0);
    for (int i = 0; i < N_SAMPLES; i++) {
        v[i] = some_value(&r) % 5000000;
        wl_hist_add(h, v[i], 1);
    }
    qsort(v, N_SAMPLES, sizeof v[0], cmp_u64);
    static const double qs[] = {0, 0.1, 0.5, 0.9, 0.99, 0.999, 0.9999, 0.99999};
    int close = 1;
    for (size_t k = 0; k < sizeof qs / sizeof qs[0]; k++) {
        double rank = ceil(qs[k] * N_SAMPLES);
        double exact = (double)v[(rank < 1 ? 1 : (size_t)rank) - 1];
        double got = wl_hist_quantile(h, qs[k], 0);
        close &= fabs(got - exact) <= exact / 256 + 0.5;
    }
    uint64_t sum = 0;
    for (int i = 0; i < N_SAMPLES; i++)
        sum += v[i];
    TCHECK("hist: quantiles within half a bucket (0.4%) of the sorted samples", close);
    TCHECK("hist: count, sum and max are exact", h->count == N_SAMPLES && h->sum == sum &&
                                                     h->max == v[N_SAMPLES - 1] &&
                                                     wl_hist_quantile(h, 1, 0) == (double)v[N_SAMPLES - 1]);
    TCHECK("hist: mean is sum / count", fabs(wl_hist_mean(h) - (double)sum / N_SAMPLES) < 1e-6);
    struct wl_hist *empty = new_hist();
    TCHECK("hist: an empty histogram gives 0", wl_hist_quantile(empty, 0.5, 0) == 0 && wl_hist_quantile(empty, 0.5, 10) == 0 &&
                                                   wl_hist_mean(empty) == 0);
    free(empty);
    free(h);
}

/* 8 "threads" x 3 "reps" of uneven sizes merged in two orders equal one histogram of all samples. */
static void test_merge(void)
{
    struct wl_hist *all = new_hist(), *merged = new_hist(), *backwards = new_hist();
    struct wl_hist *part[24];
    struct wl_rng r;
    wl_rng_init(&r, 9, 0);
    for (int p = 0; p < 24; p++)
        part[p] = new_hist();
    for (int i = 0; i < N_SAMPLES; i++) {
        uint64_t x = some_value(&r);
        int p = (int)(wl_rng_next(&r) % (uint64_t)(1 + i % 24));
        wl_hist_add(part[p], x, 1);
        wl_hist_add(all, x, 1);
    }
    for (int p = 0; p < 24; p++) {
        wl_hist_merge(merged, part[p]);
        wl_hist_merge(backwards, part[23 - p]);
    }
    int same = merged->count == all->count && merged->sum == all->sum && merged->max == all->max &&
               merged->lo_i == all->lo_i && merged->hi_i == all->hi_i &&
               memcmp(merged->b, all->b, sizeof all->b) == 0 && memcmp(backwards->b, all->b, sizeof all->b) == 0;
    int quantiles = 1;
    for (double q = 0; q <= 1.0; q += 0.0625)
        quantiles &= wl_hist_quantile(merged, q, 0) == wl_hist_quantile(all, q, 0) &&
                     wl_hist_quantile(merged, q, 10.02) == wl_hist_quantile(all, q, 10.02);
    TCHECK("merge: per-thread/per-rep histograms merged equal one histogram of all samples", same);
    TCHECK("merge: and give the same quantiles", quantiles);
    for (int p = 0; p < 24; p++)
        free(part[p]);
    free(all);
    free(merged);
    free(backwards);
}

/* Sparse text in small chunks decodes back to the same buckets; malformed text is refused. */
static void test_text(void)
{
    struct wl_hist *h = new_hist(), *back = new_hist(), *bad = new_hist();
    struct wl_rng r;
    wl_rng_init(&r, 11, 0);
    for (int i = 0; i < 50000; i++)
        wl_hist_add(h, some_value(&r), 1 + (uint64_t)(i % 3));
    char buf[100];
    uint32_t from = 0;
    int chunks = 0, fits = 1, decodes = 1;
    while (wl_hist_encode(h, &from, buf, sizeof buf) > 0) {
        chunks++;
        fits &= strlen(buf) < sizeof buf;
        decodes &= wl_hist_decode(back, buf) == 0;
    }
    TCHECK("text: a histogram splits into many chunks that each fit", chunks > 10 && fits);
    TCHECK("text: the chunks decode to the same buckets and count",
           decodes && back->count == h->count && memcmp(back->b, h->b, sizeof h->b) == 0);
    static const char *const malformed[] = {"12:", "x:1", "4352:1", "1:2:3", "1:1,,", ":5", "3:-1"};
    int refused = 1;
    for (size_t k = 0; k < sizeof malformed / sizeof malformed[0]; k++)
        refused &= wl_hist_decode(bad, malformed[k]) != 0;
    TCHECK("text: malformed bucket lists are refused", refused);
    free(h);
    free(back);
    free(bad);
}

/* The step is a whole number (>= 1) of ticks, and fresh differences of successive reads are
 * multiples of it (>= 90%: the step finder asks 99% of its own sample; a preemption or a move to
 * another CPU may break a few). With a step of one tick this holds of every difference. */
static void test_clock_step(void)
{
    double ticks = wl_clock_info.step_ns * wl_clock_info.mhz / 1000;
    uint64_t step = (uint64_t)(ticks + 0.5);
    TCHECK("clock: the step is a whole number of ticks", step >= 1 && fabs(ticks - (double)step) < 0.01);
    int on = 0;
    for (int i = 0; i < 1000; i++) {
        uint64_t t0 = wl_clock_read();
        on += (wl_clock_read() - t0) % (step ? step : 1) == 0;
    }
    TCHECK("clock: successive reads differ by multiples of the step", on >= 900);
}

/* Over a 20 ms sleep, CLOCK_MONOTONIC's interval (read between two pairs of our reads) lies inside
 * our inner and outer intervals, within 2%: true however the test is preempted. Cost is measured. */
static void test_clock(void)
{
    wl_clock_init();
    uint64_t t0 = wl_clock_read();
    uint64_t a = wl_clock_mono_ns();
    uint64_t t0b = wl_clock_read();
    nanosleep(&(struct timespec){0, 20000000}, NULL);
    uint64_t t1 = wl_clock_read();
    uint64_t b = wl_clock_mono_ns();
    uint64_t t1b = wl_clock_read();
    double mono = (double)(b - a), inner = (double)wl_clock_ns(t1 - t0b), outer = (double)wl_clock_ns(t1b - t0);
    TCHECK("clock: ticks converted to ns agree with CLOCK_MONOTONIC within 2%",
           mono >= inner * 0.98 && mono <= outer * 1.02 && inner > 0);
    TCHECK("clock: its cost is measured (0 < cost < 10 us)", wl_clock_info.cost_ns > 0 && wl_clock_info.cost_ns < 10000);
    test_clock_step();
}

/* Records the latency records of `phase`/`op` in the file fd into h; returns the `latency` samples
 * field; *step_ns gets the latency_clock record's step (0 when there is none). */
static long long read_records(FILE *f, const char *phase, const char *op, struct wl_hist *h, double *step_ns)
{
    char line[1024], want[128], want_hist[128];
    long long samples = -1;
    snprintf(want, sizeof want, "latency\t%s\t%s\t", phase, op);
    snprintf(want_hist, sizeof want_hist, "latency_hist\t%s\t%s\t", phase, op);
    rewind(f);
    *step_ns = 0;
    while (fgets(line, sizeof line, f)) {
        line[strcspn(line, "\n")] = '\0';
        if (strncmp(line, "latency_clock\t", 14) == 0) {
            char *field = line;
            for (int k = 0; k < 6 && field; k++)
                field = strchr(field + 1, '\t');
            *step_ns = field ? atof(field + 1) : 0;
        } else if (strncmp(line, want, strlen(want)) == 0)
            samples = atoll(line + strlen(want));
        else if (strncmp(line, want_hist, strlen(want_hist)) == 0 && wl_hist_decode(h, line + strlen(want_hist)))
            return -2;
    }
    return samples;
}

/* A thread doing n timed malloc/free pairs through WL_LAT. */
static void *pairs(void *arg)
{
    long n = (long)arg;
    for (long i = 0; i < n; i++) {
        void *p;
        WL_LAT(WL_OP_MALLOC, p = malloc(32));
        WL_LAT(WL_OP_FREE, free(p));
    }
    return NULL;
}

/* Sampled mode on 4 threads: about one call in 16 timed, written as records that decode to that count. */
static void test_sampler(FILE *f)
{
    wl_lat_configure("sampled", 16);
    wl_lat_start();
    pthread_t t[4];
    for (long i = 0; i < 4; i++)
        pthread_create(&t[i], NULL, pairs, (void *)(40000 + i * 1000));
    for (int i = 0; i < 4; i++)
        pthread_join(t[i], NULL);
    wl_lat_flush("sampled");
    struct wl_hist *h = new_hist();
    double step;
    long long samples = read_records(f, "sampled", "malloc", h, &step);
    double expect = (4 * 40000 + 6000) / 16.0;
    TCHECK("sampler: one call in ~16 timed on 4 threads (within 10%)", fabs((double)samples - expect) < expect * 0.1);
    TCHECK("sampler: the bucket records add up to the samples", samples > 0 && (long long)h->count == samples);
    wl_lat_flush("empty");
    struct wl_hist *none = new_hist();
    TCHECK("sampler: the latency_clock record carries the clock's step", fabs(step - wl_clock_info.step_ns) <= 0.0005 + 1e-9);
    TCHECK("sampler: a flush empties the histograms", read_records(f, "empty", "malloc", none, &step) == -1 && none->count == 0);
    free(h);
    free(none);
}

/* Calls of malloc while counting is on: this program's malloc wraps glibc's (__libc_malloc), so it
 * sees the calls of every library in the process (fopen's FILE, qsort's buffer, ...). */
static int counting, mallocs;
extern void *__libc_malloc(size_t n);
void *malloc(size_t n)
{
    mallocs += counting;
    return __libc_malloc(n);
}

/* Starting the sampler (clock choice, calibration, cost) and writing records never calls malloc:
 * the heap a workload measures stays as the workload leaves it (an early malloc of a FILE once
 * halved churn-random's page faults under glibc). */
static void test_quiet_heap(void)
{
    counting = 1;
    wl_lat_configure("sampled", 1);
    wl_lat_start();
    int x = 0;
    for (int i = 0; i < 100; i++)
        WL_LAT(WL_OP_REALLOC, x += i);
    wl_lat_flush("quiet");
    counting = 0;
    TCHECK("sampler: start, samples and flush call no malloc", x == 4950 && mallocs == 0);
}

/* Prints "samples p50 p99 p99.9 max" of phase/op from the records in path, corrected for the step of
 * its latency_clock record (exit 2 when unreadable). */
static int print_quantiles(const char *path, const char *phase, const char *op)
{
    FILE *f = fopen(path, "r");
    struct wl_hist *h = new_hist();
    double s = 0;
    long long samples = f ? read_records(f, phase, op, h, &s) : -1;
    if (samples < 0) {
        fprintf(stderr, "latency: no readable latency records of %s/%s in %s\n", phase, op, path);
        return 2;
    }
    printf("%lld %.0f %.0f %.0f %.0f\n", samples, wl_hist_quantile(h, 0.5, s), wl_hist_quantile(h, 0.99, s),
           wl_hist_quantile(h, 0.999, s), wl_hist_quantile(h, 1, s));
    return 0;
}

/* The records of the sampler tests go to a temporary file named by HEAPBENCH_PHASE_FD. */
/* The modes' table, their names for messages and their parser agree (wl_latmode.h). */
static void check_modes(void)
{
    char words[64] = "", bar[64] = "";
    for (int m = 0; m < WL_LAT_MODES; m++) {
        const char *sep = m == 0 ? "" : m == WL_LAT_MODES - 1 ? " or " : ", ";
        snprintf(words + strlen(words), sizeof words - strlen(words), "%s%s", sep, wl_lat_mode_names[m]);
        snprintf(bar + strlen(bar), sizeof bar - strlen(bar), "%s%s", m ? "|" : "", wl_lat_mode_names[m]);
        TCHECK("modes: each name parses back to its mode", wl_lat_mode_parse(wl_lat_mode_names[m]) == m);
    }
    TCHECK("modes: WL_LAT_MODE_WORDS lists the table", strcmp(words, WL_LAT_MODE_WORDS) == 0);
    TCHECK("modes: WL_LAT_MODE_BAR lists the table", strcmp(bar, WL_LAT_MODE_BAR) == 0);
    TCHECK("modes: an unknown word and NULL are -1", wl_lat_mode_parse("some") == -1 && wl_lat_mode_parse(NULL) == -1);
}

int main(int argc, char **argv)
{
    if (argc == 5 && strcmp(argv[1], "--quantiles") == 0)
        return print_quantiles(argv[2], argv[3], argv[4]);
    FILE *f = tmpfile();
    char fd[16];
    snprintf(fd, sizeof fd, "%d", f ? fileno(f) : -1);
    setenv("HEAPBENCH_PHASE_FD", fd, 1);
    TCHECK("sampler: a temporary file for the records", f != NULL);
    check_modes();
    if (f)
        test_quiet_heap();
    test_buckets();
    test_quantiles();
    test_merge();
    test_text();
    test_clock();
    if (f)
        test_sampler(f);
    return tcheck_summary();
}
