/* hp-timing.h - the one glibc-internal header that glibc's benchtests bench-malloc-simple and
 * bench-malloc-thread need (through bench-timing.h) to build outside glibc's tree, for
 * bench/insn_ratio.py.
 * Always holds: HP_TIMING_NOW reads CLOCK_MONOTONIC in nanoseconds, as glibc's generic
 * hp-timing.h does (its copy needs glibc's internal headers); insn-ratio counts instructions,
 * so the timings the benchtests print are not used.
 */
#ifndef HEAPBENCH_HP_TIMING_H
#define HEAPBENCH_HP_TIMING_H

#include <stdint.h>
#include <time.h>

typedef uint64_t hp_timing_t;

#define HP_TIMING_NOW(var)                                                                    \
    ({                                                                                        \
        struct timespec hp_tv_;                                                               \
        clock_gettime(CLOCK_MONOTONIC, &hp_tv_);                                              \
        (var) = (uint64_t)hp_tv_.tv_nsec + UINT64_C(1000000000) * (uint64_t)hp_tv_.tv_sec;    \
    })
#define HP_TIMING_DIFF(diff, start, end) ((diff) = (end) - (start))
#define HP_TIMING_ACCUM_NT(sum, diff) ((sum) += (diff))

#endif
