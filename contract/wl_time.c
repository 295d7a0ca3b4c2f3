/* wl_time.c - monotonic timing for workloads (see wl_time.h).
 * Always holds: CLOCK_MONOTONIC only. */
#include "wl_time.h"

#include <time.h>

/* Seconds on CLOCK_MONOTONIC, with nanosecond resolution. */
double wl_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}
