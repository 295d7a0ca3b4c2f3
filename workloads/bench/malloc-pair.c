/* bench/malloc-pair.c - the latency sampler's accuracy: sampled p50 of malloc(32) and free against a tight loop's mean.
 *
 * Usage: build/bench/workloads-malloc-pair [ROUNDS [PAIRS]] (defaults 9 and 2000000). Each round
 * runs the same loop of PAIRS malloc(32)/free pairs twice, interleaved: once bare, timed as a whole
 * with CLOCK_MONOTONIC (mean ns per pair), once with both calls under WL_LAT in mode sampled
 * (the default period, WL_LAT_EVERY_DEFAULT), giving p50 and mean of malloc and of free. Prints one line per round and the medians
 * of two estimates against the tight-loop mean per pair: p50(malloc) + p50(free) - 2 x clock cost
 * (its median), both medians by wl_hist_quantile corrected for the clock's step (a TSC that
 * advances in steps quantises every sample to the step; the correction spreads each sample over
 * one step), and mean(malloc) + mean(free) - 2 x the clock's mean cost, the means left without
 * samples >= 1 us (preemptions on a loaded machine), which needs no correction (the mean of many
 * samples is dithered by the random phase of the step); the bare loop's figure is its median
 * block of 10000 pairs for the same reason.
 * Always holds: a benchmark, not a test (it asserts nothing); it runs under whatever malloc is
 * linked or preloaded, and says which clock it used and what it cost. */
#include "wl_clock.h"
#include "wl_hist.h"
#include "wl_latency.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

/* Keeps the compiler from dropping a malloc/free pair whose block is never used. */
#define ESCAPE(p) __asm__ __volatile__("" : : "g"(p) : "memory")

#define MP_BLOCK 10000 /* pairs per timed block of the bare loop */
#define MP_TRIM 1000    /* samples of 1 us or more are preemptions, not calls: left out of the means */

static int cmp_d(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, cmp_d);
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* Mean ns per bare pair: n pairs in blocks of MP_BLOCK, each timed with CLOCK_MONOTONIC; the median
 * block, so that blocks in which the process was preempted (a loaded machine) do not count. */
static double bare(long n)
{
    int nb = (int)(n / MP_BLOCK);
    double *block = calloc((size_t)nb, sizeof *block);
    for (int b = 0; b < nb; b++) {
        uint64_t t0 = wl_clock_mono_ns();
        for (long i = 0; i < MP_BLOCK; i++) {
            void *p = malloc(32);
            ESCAPE(p);
            free(p);
        }
        block[b] = (double)(wl_clock_mono_ns() - t0) / MP_BLOCK;
    }
    double m = median(block, nb);
    free(block);
    return m;
}

/* Mean of the samples of h below MP_TRIM ns (bucket midpoints; exact below 256 ns). */
static double trimmed_mean(const struct wl_hist *h)
{
    double sum = 0, n = 0;
    for (uint32_t i = h->lo_i; h->count && i <= h->hi_i && wl_hist_lo(i) < MP_TRIM; i++) {
        sum += (double)h->b[i] * ((double)wl_hist_lo(i) + (double)(wl_hist_width(i) - 1) / 2);
        n += (double)h->b[i];
    }
    return n ? sum / n : 0;
}

/* What one sampled loop gave: p50 and mean (ns) of malloc and free. */
struct mp_result {
    double p50[2], mean[2];
};

/* Reads the `latency_hist` records of phase `pair` back from f: p50 and trimmed mean of each op. */
static void mp_read(FILE *f, struct mp_result *res)
{
    static const char *const ops[2] = {"malloc", "free"};
    char line[1024], want[64];
    struct wl_hist *h = mmap(NULL, sizeof *h, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    for (int k = 0; k < 2; k++) {
        wl_hist_clear(h);
        rewind(f);
        while (fgets(line, sizeof line, f)) {
            line[strcspn(line, "\n")] = '\0';
            snprintf(want, sizeof want, "latency_hist\tpair\t%s\t", ops[k]);
            if (strncmp(line, want, strlen(want)) == 0)
                wl_hist_decode(h, line + strlen(want));
        }
        res->p50[k] = wl_hist_quantile(h, 0.5, wl_clock_info.step_ns);
        res->mean[k] = trimmed_mean(h);
    }
    munmap(h, sizeof *h);
}

/* The same loop through the sampler; the samples are read back from the records (a temporary file). */
static void sampled(long n, FILE *f, struct mp_result *res)
{
    for (long i = 0; i < n; i++) {
        void *p;
        WL_LAT(WL_OP_MALLOC, p = malloc(32));
        ESCAPE(p);
        WL_LAT(WL_OP_FREE, free(p));
    }
    if (ftruncate(fileno(f), 0) != 0)
        return;
    lseek(fileno(f), 0, SEEK_SET);
    wl_lat_flush("pair");
    mp_read(f, res);
}

/* Trimmed mean ns of n empty timed intervals, timed as WL_LAT times a call. */
static double clock_mean(long n)
{
    uint64_t sum = 0, kept = 0;
    for (long i = 0; i < n; i++) {
        uint64_t t0 = wl_clock_read();
        __asm__ __volatile__("" ::: "memory");
        uint64_t d = wl_clock_ns(wl_clock_read() - t0);
        if (d < MP_TRIM) {
            sum += d;
            kept++;
        }
    }
    return kept ? (double)sum / (double)kept : 0;
}

int main(int argc, char **argv)
{
    int rounds = argc > 1 ? atoi(argv[1]) : 9;
    long pairs = argc > 2 ? atol(argv[2]) : 2000000;
    if (rounds < 1 || rounds > 1000 || pairs < 1000) {
        fprintf(stderr, "malloc-pair: usage: malloc-pair [ROUNDS 1..1000 [PAIRS >= 1000]]\n");
        return 2;
    }
    FILE *f = tmpfile();
    if (!f) {
        fprintf(stderr, "malloc-pair: no temporary file for the records; check TMPDIR\n");
        return 1;
    }
    char fd[16];
    snprintf(fd, sizeof fd, "%d", fileno(f));
    setenv("HEAPBENCH_PHASE_FD", fd, 1);
    wl_lat_configure(wl_lat_mode_names[WL_LAT_SAMPLED], WL_LAT_EVERY_DEFAULT);
    wl_lat_start();
    printf("clock %s, cost %.2f ns, step %.2f ns, %.1f ticks/us\n", wl_clock_info.source, wl_clock_info.cost_ns,
           wl_clock_info.step_ns, wl_clock_info.mhz);
    printf("round  tight_ns  p50_malloc  p50_free  mean_malloc  mean_free  clock_mean  est_p50  est_mean  diff_p50  diff_mean\n");
    double *tight = calloc((size_t)rounds, sizeof *tight), *dp = calloc((size_t)rounds, sizeof *dp);
    double *dm = calloc((size_t)rounds, sizeof *dm);
    bare(pairs / 10); /* warm-up */
    for (int r = 0; r < rounds; r++) {
        struct mp_result res = {{0, 0}, {0, 0}};
        tight[r] = bare(pairs);
        sampled(pairs, f, &res);
        double cm = clock_mean(pairs / 10);
        double est_p50 = res.p50[0] + res.p50[1] - 2 * wl_clock_info.cost_ns;
        double est_mean = res.mean[0] + res.mean[1] - 2 * cm;
        dp[r] = est_p50 - tight[r];
        dm[r] = est_mean - tight[r];
        printf("%5d  %8.2f  %10.2f  %8.2f  %11.2f  %9.2f  %10.2f  %7.2f  %8.2f  %8.2f  %9.2f\n", r + 1, tight[r],
               res.p50[0], res.p50[1], res.mean[0], res.mean[1], cm, est_p50, est_mean, dp[r], dm[r]);
    }
    printf("medians: tight-loop pair %.2f ns; paired diff of the p50 estimate %.2f ns, of the mean estimate %.2f ns\n",
           median(tight, rounds), median(dp, rounds), median(dm, rounds));
    return 0;
}
