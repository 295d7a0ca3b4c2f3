/* wl_rng.h - the seeded pseudo-random generator every workload uses (xoshiro256**, seeded by splitmix64).
 * Always holds: the same (seed, stream) pair gives the same sequence on every machine and
 * allocator, so a workload is deterministic for a given --seed; streams are independent
 * (one per thread). */
#ifndef WL_RNG_H
#define WL_RNG_H

#include <stdint.h>

struct wl_rng {
    uint64_t s[4];
};

/* Seeds r from (seed, stream) through splitmix64; the state is never all zero. */
void wl_rng_init(struct wl_rng *r, uint64_t seed, uint64_t stream);

/* Next 64 uniformly distributed bits. */
uint64_t wl_rng_next(struct wl_rng *r);

/* Uniform integer in [lo, hi] (lo <= hi); negligible modulo bias for the ranges used here. */
uint64_t wl_rng_range(struct wl_rng *r, uint64_t lo, uint64_t hi);

#endif
