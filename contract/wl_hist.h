/* wl_hist.h - log-linear latency histogram (HdrHistogram-style): exact below 256 ns, then 128 buckets per power of two.
 * Always holds: a value v (ns) falls in exactly one bucket [wl_hist_lo(i), wl_hist_lo(i) + wl_hist_width(i))
 * with i = wl_hist_index(v); a bucket's width is at most 1/128 of its lower bound (relative error
 * <= 0.79%, <= 0.4% when the midpoint is reported); values >= 2^40 ns share the last bucket;
 * count, sum and max are exact; merging adds counts, so merging histograms equals one histogram of
 * all their samples. The sparse text form ("index:count,...") is the one written in `latency_hist`
 * records (docs/DATA.md) and read back by wl_hist_decode. */
#ifndef WL_HIST_H
#define WL_HIST_H

#include <stddef.h>
#include <stdint.h>

#define WL_HIST_SUB_BITS 7                           /* 128 sub-buckets per power of two */
#define WL_HIST_SUB (1u << WL_HIST_SUB_BITS)
#define WL_HIST_MAX_SHIFT 32                         /* widest buckets: 2^32 ns (values up to 2^40) */
#define WL_HIST_BUCKETS ((WL_HIST_MAX_SHIFT + 2) * WL_HIST_SUB) /* 4352 */

struct wl_hist {
    uint64_t count;        /* samples */
    uint64_t sum;          /* exact sum of the values (ns) */
    uint64_t max;          /* exact largest value */
    uint32_t lo_i, hi_i;   /* lowest and highest non-empty bucket (lo_i > hi_i when empty) */
    uint64_t b[WL_HIST_BUCKETS];
};

/* The bucket of value v: v itself below 256, else shift * 128 + (v >> shift) with shift = log2(v) - 7. */
static inline uint32_t wl_hist_index(uint64_t v)
{
    if (v < 2 * WL_HIST_SUB)
        return (uint32_t)v;
    unsigned shift = 63u - (unsigned)__builtin_clzll(v) - WL_HIST_SUB_BITS;
    if (shift > WL_HIST_MAX_SHIFT)
        return WL_HIST_BUCKETS - 1;
    return shift * WL_HIST_SUB + (uint32_t)(v >> shift);
}

/* Lower bound (ns) of bucket i. */
uint64_t wl_hist_lo(uint32_t i);

/* Width (ns) of bucket i: 1 below 256, doubling every 128 buckets after. */
uint64_t wl_hist_width(uint32_t i);

/* Empties h. */
void wl_hist_clear(struct wl_hist *h);

/* Adds n samples of value v. */
void wl_hist_add(struct wl_hist *h, uint64_t v, uint64_t n);

/* Adds every sample of src to dst (exact). */
void wl_hist_merge(struct wl_hist *dst, const struct wl_hist *src);

/* The value at quantile q in [0, 1] of samples read with a clock of step step_ns (wl_clock.h;
 * docs/DATA.md "Quantiles"), never below 0 nor above max; q = 1 gives max, 0 when h is empty.
 * step_ns <= 1 (a clock finer than the 1 ns buckets): the sample of rank ceil(q * count) (rank 1
 * at least), reported as the midpoint of its bucket. step_ns > 1 (a stepping clock, whose reads
 * quantise every sample to the step): continuity-corrected, each sample stands for a duration
 * spread uniformly over [mid - step_ns/2, mid + step_ns/2) around its bucket's midpoint, and the
 * quantile is where that piecewise-linear CDF reaches q * count. */
double wl_hist_quantile(const struct wl_hist *h, double q, double step_ns);

/* Mean of the samples (exact sum / count), 0 when empty. */
double wl_hist_mean(const struct wl_hist *h);

/* Writes the non-empty buckets from index *from on as "i:c,i:c" into buf (size len, NUL-terminated),
 * as many as fit; advances *from past the last one written. Returns the characters written
 * (0 when none is left). */
size_t wl_hist_encode(const struct wl_hist *h, uint32_t *from, char *buf, size_t len);

/* Adds the buckets of the text "i:c,i:c" to h (count and max follow the buckets: max becomes at
 * least the highest bucket's lower bound; sum is left to the caller). Returns 0, or -1 on a
 * malformed text or an index out of range (h then holds the entries before the error). */
int wl_hist_decode(struct wl_hist *h, const char *text);

#endif
