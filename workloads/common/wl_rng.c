/* wl_rng.c - xoshiro256** seeded by splitmix64 (see wl_rng.h).
 * Always holds: deterministic per (seed, stream); state never all zero. */
#include "wl_rng.h"

/* One splitmix64 step: advances *x and returns a well-mixed 64-bit value. */
static uint64_t wl_splitmix64(uint64_t *x)
{
    uint64_t z = (*x += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

/* Rotates x left by k bits (0 < k < 64). */
static inline uint64_t wl_rotl(uint64_t x, int k)
{
    return (x << k) | (x >> (64 - k));
}

/* Seeds the four state words from splitmix64 over seed mixed with stream. */
void wl_rng_init(struct wl_rng *r, uint64_t seed, uint64_t stream)
{
    uint64_t x = seed ^ (stream * 0xd1b54a32d192ed03ULL);
    for (int i = 0; i < 4; i++)
        r->s[i] = wl_splitmix64(&x);
    if ((r->s[0] | r->s[1] | r->s[2] | r->s[3]) == 0)
        r->s[0] = 1;
}

/* xoshiro256** by Blackman and Vigna. */
uint64_t wl_rng_next(struct wl_rng *r)
{
    uint64_t *s = r->s;
    uint64_t result = wl_rotl(s[1] * 5, 7) * 9;
    uint64_t t = s[1] << 17;
    s[2] ^= s[0];
    s[3] ^= s[1];
    s[1] ^= s[2];
    s[0] ^= s[3];
    s[2] ^= t;
    s[3] = wl_rotl(s[3], 45);
    return result;
}

/* Uniform in [lo, hi]: the full range needs no reduction, others take the value modulo the span. */
uint64_t wl_rng_range(struct wl_rng *r, uint64_t lo, uint64_t hi)
{
    uint64_t span = hi - lo + 1;
    uint64_t v = wl_rng_next(r);
    return span == 0 ? v : lo + v % span;
}
