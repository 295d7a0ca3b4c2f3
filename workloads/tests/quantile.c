/* tests/quantile.c - unit tests of wl_hist_quantile's correction for a stepping clock (docs/DATA.md "Quantiles").
 * Always holds: every expected value is derived here independently of wl_hist.c: the analytic
 * median of a quantised constant, the spread CDF summed directly at the returned point, the rank
 * rule for a fine clock; nothing is timed. With `--lines` it instead reads lines
 * "step<TAB>max<TAB>i:c,i:c" on stdin and prints, per line, the quantiles at QS (%.17g, space
 * separated): report/heapbench/tests/test_latency.py checks that heapbench.latency gives the same. */
#include "tcheck.h"
#include "wl_hist.h"
#include "wl_rng.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static const double QS[] = {0, 0.001, 0.1, 0.25, 0.5, 0.75, 0.9, 0.99, 0.999, 0.9999, 1};
#define NQS (sizeof QS / sizeof QS[0])

/* The histogram every test fills (static: 35 KiB, one test at a time). */
static struct wl_hist the_hist;

/* the_hist, emptied. */
static struct wl_hist *empty_hist(void)
{
    wl_hist_clear(&the_hist);
    return &the_hist;
}

/* The worst error of the corrected median of a constant duration, as a fraction of the step: a
 * duration d = (k + f) s is read as ks with probability 1 - f and (k + 1) s with probability f;
 * spreading both over one step puts the median at ks - s/2 + s / (2 (1 - f)) for f <= 1/2 (error
 * s (1/(2(1 - f)) - 1/2 - f), largest at f = 1 - 1/sqrt 2) and symmetrically above: 3/2 - sqrt 2. */
#define WORST (1.5 - M_SQRT2)

/* A constant duration d read with a clock of integer step s: N samples split between the two
 * multiples of s around d. Its corrected p50 is within WORST * s of d for every phase, and the
 * largest error over a fine sweep of d reaches that bound (the correction is the one analysed). */
static void test_constant(uint64_t s)
{
    const double n = 1000000;
    struct wl_hist *h = empty_hist();
    double worst = 0;
    int within = 1;
    for (int j = 0; j < 400; j++) {
        double d = (double)s * j / 100, f = d / (double)s - floor(d / (double)s);
        uint64_t k = (uint64_t)floor(d / (double)s), lo = (uint64_t)llround(n * (1 - f));
        wl_hist_clear(h);
        wl_hist_add(h, k * s, lo);
        wl_hist_add(h, (k + 1) * s, (uint64_t)n - lo);
        double err = fabs(wl_hist_quantile(h, 0.5, (double)s) - d);
        within &= err <= WORST * (double)s + 1e-4 * (double)s;
        worst = err > worst ? err : worst;
    }
    char name[160];
    snprintf(name, sizeof name, "quantile: step %llu: p50 of a quantised constant within (3/2 - sqrt 2) x step of it",
             (unsigned long long)s);
    TCHECK(name, within);
    snprintf(name, sizeof name, "quantile: step %llu: and the worst phase comes within 2%% of that bound",
             (unsigned long long)s);
    TCHECK(name, worst >= 0.98 * WORST * (double)s);
}

/* The worked example: 5.5 ns read with a 10 ns step is 0 (45%) or 10 (55%); the corrected median
 * is 5 + 10 x 0.05 / 0.55 (the 0.55 of the upper sample spread over [5, 15)); the rank rule says 10. */
static void test_example(void)
{
    struct wl_hist *h = empty_hist();
    wl_hist_add(h, 0, 45);
    wl_hist_add(h, 10, 55);
    double p50 = wl_hist_quantile(h, 0.5, 10);
    TCHECK("quantile: 0 (45%) and 10 (55%) with a 10 ns step: p50 = 5 + 0.5/0.55", fabs(p50 - (5 + 0.5 / 0.55)) < 1e-9);
    TCHECK("quantile: which is within (3/2 - sqrt 2) x 10 ns of 5.5", fabs(p50 - 5.5) <= WORST * 10);
    TCHECK("quantile: the rank rule (fine clock) reads 10", wl_hist_quantile(h, 0.5, 0) == 10);
}

/* Random samples of every scale, a few hundred ns to ms (buckets of 1 to 2^13 ns). */
static struct wl_hist *random_hist(uint64_t seed)
{
    struct wl_hist *h = empty_hist();
    struct wl_rng r;
    wl_rng_init(&r, seed, 0);
    for (int i = 0; i < 20000; i++) {
        double u = (double)(wl_rng_next(&r) >> 11) * 0x1.0p-53;
        wl_hist_add(h, (uint64_t)exp(u * u * 14), 1 + wl_rng_next(&r) % 3);
    }
    return h;
}

/* The spread CDF at x summed directly: each bucket's samples uniform over [mid - s/2, mid + s/2). */
static double spread_cdf(const struct wl_hist *h, double s, double x)
{
    double f = 0;
    for (uint32_t i = h->lo_i; i <= h->hi_i; i++) {
        double a = (double)wl_hist_lo(i) + (double)(wl_hist_width(i) - 1) / 2 - s / 2;
        double part = (x - a) / s;
        f += (double)h->b[i] * (part < 0 ? 0 : part > 1 ? 1 : part);
    }
    return f;
}

/* With a step the CDF summed directly at the answer is q x count (the sweep handles overlapping
 * spreads of buckets narrower than the step); the quantiles rise with q; a step <= 1 ns leaves
 * every quantile as the rank rule gives it. */
static void test_random(void)
{
    struct wl_hist *h = random_hist(11);
    int cdf = 1, rising = 1, fine = 1;
    double last = 0;
    for (double q = 0.0005; q < 1; q += 0.0005) {
        double x = wl_hist_quantile(h, q, 10.02);
        if (x > 0 && x < (double)h->max)
            cdf &= fabs(spread_cdf(h, 10.02, x) - q * (double)h->count) < 1e-6 * (double)h->count;
        rising &= x >= last;
        last = x;
        double rank = wl_hist_quantile(h, q, 0);
        fine &= wl_hist_quantile(h, q, 1) == rank && wl_hist_quantile(h, q, 0.477) == rank;
    }
    TCHECK("quantile: with a step, the spread CDF at the answer is q x count", cdf);
    TCHECK("quantile: with a step, quantiles rise with q", rising);
    TCHECK("quantile: a step <= 1 ns gives the rank rule's quantiles unchanged", fine);
    TCHECK("quantile: never below 0 nor above max", wl_hist_quantile(h, 0, 10.02) >= 0 &&
                                                       wl_hist_quantile(h, 0.99999, 1e6) <= (double)h->max);
}

/* --lines: the quantiles at QS of each "step<TAB>max<TAB>buckets" line of stdin; exit 2 on a bad line. */
static int print_lines(void)
{
    static char line[1 << 20];
    while (fgets(line, sizeof line, stdin)) {
        line[strcspn(line, "\n")] = '\0';
        char *max = strchr(line, '\t'), *buckets = max ? strchr(max + 1, '\t') : NULL;
        struct wl_hist *h = empty_hist();
        if (!buckets || wl_hist_decode(h, buckets + 1) != 0) {
            fprintf(stderr, "quantile: bad line (want step<TAB>max<TAB>i:c,...): %.60s\n", line);
            return 2;
        }
        h->max = strtoull(max + 1, NULL, 10);
        for (size_t k = 0; k < NQS; k++)
            printf("%s%.17g", k ? " " : "", wl_hist_quantile(h, QS[k], atof(line)));
        printf("\n");
    }
    return 0;
}

int main(int argc, char **argv)
{
    if (argc == 2 && strcmp(argv[1], "--lines") == 0)
        return print_lines();
    test_example();
    test_constant(10);
    test_constant(7);
    test_random();
    return tcheck_summary();
}
