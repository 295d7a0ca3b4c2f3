/* wl_time.h - monotonic timing for workloads.
 * Always holds: times come from CLOCK_MONOTONIC (never the wall clock), in seconds. */
#ifndef WL_TIME_H
#define WL_TIME_H

/* Seconds on the monotonic clock since an arbitrary fixed point; only differences mean anything. */
double wl_now(void);

#endif
