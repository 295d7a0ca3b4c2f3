/* wl_clock.c - chooses, calibrates and measures the latency clock (see wl_clock.h).
 * Always holds: wl_clock_mult converts the chosen source's ticks to ns; the TSC rate comes from
 * two (TSC, CLOCK_MONOTONIC) pairs ~2 ms apart, each pair the tightest of several tries, so a
 * preemption during calibration does not bias it. */
#include "wl_clock.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int wl_clock_tsc;
uint64_t wl_clock_mult = (uint64_t)1 << 32;
struct wl_clock_info wl_clock_info = {"monotonic", 1000.0, 0};

#define WL_CLOCK_CAL_NS 2000000 /* calibration span */
#define WL_CLOCK_COST_RUNS 2001 /* empty intervals timed to find the clock's cost */

/* 1 when /proc/cpuinfo's flags list both constant_tsc and nonstop_tsc. */
static int wl_clock_tsc_stable(void)
{
    FILE *f = fopen("/proc/cpuinfo", "r");
    if (!f)
        return 0;
    char line[4096];
    int ok = 0;
    while (fgets(line, sizeof line, f)) {
        if (strncmp(line, "flags", 5) == 0) {
            ok = strstr(line, " constant_tsc") && strstr(line, " nonstop_tsc");
            break;
        }
    }
    fclose(f);
    return ok;
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

static int wl_clock_cmp(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

/* The median of WL_CLOCK_COST_RUNS empty intervals, timed exactly as the sampler times a call. */
static double wl_clock_cost(void)
{
    static uint64_t d[WL_CLOCK_COST_RUNS];
    for (int i = 0; i < WL_CLOCK_COST_RUNS; i++) {
        uint64_t t0 = wl_clock_read();
        __asm__ __volatile__("" ::: "memory");
        d[i] = wl_clock_read() - t0;
    }
    qsort(d, WL_CLOCK_COST_RUNS, sizeof d[0], wl_clock_cmp);
    return (double)d[WL_CLOCK_COST_RUNS / 2] * (double)wl_clock_mult / 4294967296.0;
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
    wl_clock_info.cost_ns = wl_clock_cost();
}
