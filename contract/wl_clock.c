/* wl_clock.c - chooses, calibrates and measures the latency clock (see wl_clock.h).
 * Always holds: wl_clock_mult converts the chosen source's ticks to ns; the TSC rate comes from
 * two (TSC, CLOCK_MONOTONIC) pairs ~2 ms apart, each pair the tightest of several tries, so a
 * preemption during calibration does not bias it; the step is a whole number of ticks (1 when
 * the clock moves by single ticks); nothing here calls malloc (the heap under test stays as the
 * workload leaves it). */
#include "wl_clock.h"
#include "wl_hist.h"
#include "wl_readfile.h"

#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int wl_clock_tsc;
uint64_t wl_clock_mult = (uint64_t)1 << 32;
struct wl_clock_info wl_clock_info = {"monotonic", 1000.0, 0, 1.0};

#define WL_CLOCK_CAL_NS 2000000 /* calibration span */
#define WL_CLOCK_COST_RUNS 2001 /* empty intervals timed to find the clock's cost */
#define WL_CLOCK_STEP_RUNS 2001 /* intervals of varied length timed to find the clock's step */
#define WL_CLOCK_STEP_TRIES 8   /* smallest distinct differences tried as the step */

/* 1 when the first CPU's flags in /proc/cpuinfo list both constant_tsc and nonstop_tsc. Read with
 * read(2) into a static buffer: the clock never calls malloc, which would change the heap the
 * workload measures. */
static int wl_clock_tsc_stable(void)
{
    static char buf[16384];
    if (wl_read_small("/proc/cpuinfo", buf, sizeof buf) < 0)
        return 0;
    char *flags = strstr(buf, "\nflags");
    if (!flags)
        return 0;
    char *end = strchr(flags + 1, '\n');
    if (end)
        *end = '\0';
    return strstr(flags, " constant_tsc") && strstr(flags, " nonstop_tsc");
}

uint64_t wl_clock_mono_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

#if defined(__x86_64__)
/* One (tsc, ns) pair: the tightest bracket tsc_a <= ns <= tsc_b of 9 tries, tsc its middle. */
static void wl_clock_pair(uint64_t *tsc, uint64_t *ns)
{
    uint64_t best = UINT64_MAX;
    for (int i = 0; i < 9; i++) {
        uint64_t a = wl_clock_read();
        uint64_t n = wl_clock_mono_ns();
        uint64_t b = wl_clock_read();
        if (b - a < best) {
            best = b - a;
            *tsc = a + (b - a) / 2;
            *ns = n;
        }
    }
}

/* Ticks per ns from two pairs WL_CLOCK_CAL_NS apart; sets wl_clock_mult. */
static void wl_clock_calibrate(void)
{
    uint64_t t0, n0, t1, n1;
    wl_clock_pair(&t0, &n0);
    while (wl_clock_mono_ns() - n0 < WL_CLOCK_CAL_NS)
        ;
    wl_clock_pair(&t1, &n1);
    double ticks_per_ns = (double)(t1 - t0) / (double)(n1 - n0);
    wl_clock_mult = (uint64_t)(4294967296.0 / ticks_per_ns + 0.5);
    wl_clock_info.mhz = ticks_per_ns * 1000.0;
}
#endif

/* Tick differences around intervals of 0..63 spins (varied lengths, so that a clock finer than
 * its read cost still shows differences of every size), into d[WL_CLOCK_STEP_RUNS]. */
static void wl_clock_gaps(uint64_t *d)
{
    for (int i = 0; i < WL_CLOCK_STEP_RUNS; i++) {
        uint64_t t0 = wl_clock_read();
        for (volatile int k = 0; k < i % 64; k++)
            ;
        d[i] = wl_clock_read() - t0;
    }
}

/* How many of the nonzero differences are whole multiples of c. */
static int wl_clock_multiples(const uint64_t *d, uint64_t c, int *nonzero)
{
    int m = 0;
    *nonzero = 0;
    for (int i = 0; i < WL_CLOCK_STEP_RUNS; i++) {
        if (d[i]) {
            ++*nonzero;
            m += d[i] % c == 0;
        }
    }
    return m;
}

/* The smallest difference above floor, or 0 when there is none. */
static uint64_t wl_clock_above(const uint64_t *d, uint64_t floor)
{
    uint64_t best = 0;
    for (int i = 0; i < WL_CLOCK_STEP_RUNS; i++)
        if (d[i] > floor && (best == 0 || d[i] < best))
            best = d[i];
    return best;
}

/* The step in ticks: the smallest nonzero difference of which at least 99% of the nonzero
 * differences are whole multiples (trying the WL_CLOCK_STEP_TRIES smallest distinct ones, so
 * that a stray short difference, e.g. a move to another CPU, does not hide the step); 1 when
 * none is (the differences take all sizes: the clock moves by single ticks). */
static uint64_t wl_clock_step_ticks(void)
{
    static uint64_t d[WL_CLOCK_STEP_RUNS];
    wl_clock_gaps(d);
    uint64_t c = 0;
    for (int t = 0; t < WL_CLOCK_STEP_TRIES && (c = wl_clock_above(d, c)) > 1; t++) {
        int nonzero, m = wl_clock_multiples(d, c, &nonzero);
        if (m * 100 >= nonzero * 99)
            return c;
    }
    return 1;
}

/* The median of WL_CLOCK_COST_RUNS empty intervals, timed exactly as the sampler times a call, by
 * the quantile estimator of every sample (wl_hist_quantile with the clock's step). The histogram
 * is static: glibc's qsort may malloc, and nothing here does. */
static double wl_clock_cost(void)
{
    static struct wl_hist h;
    wl_hist_clear(&h);
    for (int i = 0; i < WL_CLOCK_COST_RUNS; i++) {
        uint64_t t0 = wl_clock_read();
        __asm__ __volatile__("" ::: "memory");
        wl_hist_add(&h, wl_clock_ns(wl_clock_read() - t0), 1);
    }
    return wl_hist_quantile(&h, 0.5, wl_clock_info.step_ns);
}

void wl_clock_init(void)
{
    static int done;
    if (done)
        return;
    done = 1;
#if defined(__x86_64__)
    const char *want = getenv("HEAPBENCH_LATENCY_CLOCK");
    if (!(want && strcmp(want, "monotonic") == 0) && wl_clock_tsc_stable()) {
        wl_clock_tsc = 1;
        wl_clock_info.source = "rdtsc";
        wl_clock_calibrate();
    }
#endif
    wl_clock_info.step_ns = (double)wl_clock_step_ticks() * (double)wl_clock_mult / 4294967296.0;
    wl_clock_info.cost_ns = wl_clock_cost();
}
