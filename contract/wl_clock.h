/* wl_clock.h - the cheap clock of the latency sampler: rdtsc calibrated against CLOCK_MONOTONIC, else clock_gettime.
 * Always holds: wl_clock_read() returns ticks that only go forward on one thread; wl_clock_ns()
 * turns a tick difference into nanoseconds; before wl_clock_init() (or with the fallback) a tick
 * is one nanosecond of CLOCK_MONOTONIC (the vDSO clock). rdtsc is used only on x86-64 when the
 * CPU reports constant_tsc and nonstop_tsc (the TSC rate does not change with frequency or sleep
 * states) and HEAPBENCH_LATENCY_CLOCK is not "monotonic". The step: some TSCs (this project's
 * VM: 21 ticks, 10 ns) advance in steps much coarser than a tick, so every sample is a multiple
 * of the step; wl_clock_init measures it so that quantiles can be corrected for it. */
#ifndef WL_CLOCK_H
#define WL_CLOCK_H

#include <stdint.h>
#include <time.h>
#if defined(__x86_64__)
#include <x86intrin.h>
#endif

/* The clock in use and what it costs; filled by wl_clock_init. */
struct wl_clock_info {
    const char *source; /* "rdtsc" or "monotonic" */
    double mhz;         /* ticks per microsecond (1000 for monotonic) */
    double cost_ns;     /* median of an empty timed interval (read, read): what every sample includes,
                           computed by wl_hist_quantile with step_ns (the estimator of every quantile) */
    double step_ns;     /* resolution: the smallest amount the clock moves by (one tick when it moves
                           by any amount); samples are multiples of it (docs/DATA.md "Quantiles") */
};

extern int wl_clock_tsc;           /* 1 when wl_clock_read reads the TSC */
extern uint64_t wl_clock_mult;     /* ns = ticks * wl_clock_mult >> 32 */
extern struct wl_clock_info wl_clock_info;

/* Ticks now. rdtsc is fenced (lfence before it) so it does not run ahead of the timed call's start
 * or end; the fallback is clock_gettime(CLOCK_MONOTONIC) in nanoseconds. */
static inline uint64_t wl_clock_read(void)
{
#if defined(__x86_64__)
    if (wl_clock_tsc) {
        _mm_lfence();
        return __rdtsc();
    }
#endif
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* Nanoseconds in a tick difference. */
static inline uint64_t wl_clock_ns(uint64_t ticks)
{
    return (uint64_t)(((unsigned __int128)ticks * wl_clock_mult) >> 32);
}

/* CLOCK_MONOTONIC in nanoseconds (what the TSC is calibrated against). */
uint64_t wl_clock_mono_ns(void);

/* Chooses the source, calibrates the TSC against CLOCK_MONOTONIC (about 2 ms), measures the
 * clock's step, then the cost of an empty interval; idempotent. */
void wl_clock_init(void);

#endif
