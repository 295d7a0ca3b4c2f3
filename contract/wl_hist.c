/* wl_hist.c - log-linear latency histogram: buckets, merge, step-corrected quantiles, text form (see wl_hist.h).
 * Always holds: count == the sum of the bucket counts; lo_i/hi_i bound the non-empty buckets. */
#include "wl_hist.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Buckets below 256 are single values; above, bucket i covers [(i - s*128) << s, + 2^s) with s = i/128 - 1. */
uint64_t wl_hist_lo(uint32_t i)
{
    if (i < 2 * WL_HIST_SUB)
        return i;
    unsigned shift = i / WL_HIST_SUB - 1;
    return (uint64_t)(i - shift * WL_HIST_SUB) << shift;
}

/* 2^shift of the bucket's power-of-two range. */
uint64_t wl_hist_width(uint32_t i)
{
    return i < 2 * WL_HIST_SUB ? 1 : (uint64_t)1 << (i / WL_HIST_SUB - 1);
}

/* Only the bucket range that was used is zeroed, so a mostly untouched (mmap'd) histogram stays untouched. */
void wl_hist_clear(struct wl_hist *h)
{
    if (h->lo_i <= h->hi_i && h->hi_i < WL_HIST_BUCKETS)
        memset(&h->b[h->lo_i], 0, (h->hi_i - h->lo_i + 1) * sizeof h->b[0]);
    h->count = h->sum = h->max = 0;
    h->lo_i = WL_HIST_BUCKETS;
    h->hi_i = 0;
}

/* Keeps lo_i/hi_i (an all-zero struct counts as empty too: count 0 means no bucket is read). */
static void wl_hist_touch(struct wl_hist *h, uint32_t i)
{
    if (h->count == 0 || i < h->lo_i)
        h->lo_i = i;
    if (h->count == 0 || i > h->hi_i)
        h->hi_i = i;
}

void wl_hist_add(struct wl_hist *h, uint64_t v, uint64_t n)
{
    if (n == 0)
        return;
    uint32_t i = wl_hist_index(v);
    wl_hist_touch(h, i);
    h->b[i] += n;
    h->count += n;
    h->sum += v * n;
    if (v > h->max)
        h->max = v;
}

void wl_hist_merge(struct wl_hist *dst, const struct wl_hist *src)
{
    if (src->count == 0)
        return;
    for (uint32_t i = src->lo_i; i <= src->hi_i; i++)
        dst->b[i] += src->b[i];
    if (dst->count == 0 || src->lo_i < dst->lo_i)
        dst->lo_i = src->lo_i;
    if (dst->count == 0 || src->hi_i > dst->hi_i)
        dst->hi_i = src->hi_i;
    dst->count += src->count;
    dst->sum += src->sum;
    if (src->max > dst->max)
        dst->max = src->max;
}

/* Midpoint (ns) of bucket i: what a sample in it is reported as. */
static double wl_hist_mid(uint32_t i)
{
    return (double)wl_hist_lo(i) + (double)(wl_hist_width(i) - 1) / 2;
}

/* The first non-empty bucket at or after i; h->hi_i + 1 when there is none. */
static uint32_t wl_hist_next(const struct wl_hist *h, uint32_t i)
{
    while (i <= h->hi_i && !h->b[i])
        i++;
    return i;
}

/* The fine-clock rule: the midpoint of the bucket holding the sample of rank ceil(q * count). */
static double wl_hist_rank_quantile(const struct wl_hist *h, double q)
{
    double want = q * (double)h->count;
    uint64_t rank = (uint64_t)want;
    if ((double)rank < want)
        rank++;
    if (rank < 1)
        rank = 1;
    uint64_t seen = 0;
    for (uint32_t i = h->lo_i; i <= h->hi_i; i++) {
        seen += h->b[i];
        if (seen >= rank)
            return wl_hist_mid(i);
    }
    return (double)h->max;
}

/* The stepping-clock rule: bucket i's samples spread uniformly over [mid - s/2, mid + s/2). The
 * intervals are all s wide, so their starts (cursor a) and ends (cursor b) both come in bucket
 * order; between two successive breakpoints the CDF rises with slope (samples of the open
 * intervals) / s, and the answer is where it reaches q * count. report/heapbench/latency.py's
 * _spread_quantile does the same sums in the same order. */
static double wl_hist_spread_quantile(const struct wl_hist *h, double q, double s)
{
    double target = q * (double)h->count, half = s / 2, slope = 0, f = 0;
    uint32_t a = wl_hist_next(h, h->lo_i), b = a;
    double x = wl_hist_mid(a) - half;
    while (b <= h->hi_i) {
        double xa = a <= h->hi_i ? wl_hist_mid(a) - half : INFINITY;
        double xb = wl_hist_mid(b) + half;
        double nx = xa <= xb ? xa : xb;
        double nf = f + slope * (nx - x);
        if (slope > 0 && nf >= target)
            return x + (target - f) / slope;
        x = nx;
        f = nf;
        if (xa <= xb) {
            slope += (double)h->b[a] / s;
            a = wl_hist_next(h, a + 1);
        } else {
            slope -= (double)h->b[b] / s;
            b = wl_hist_next(h, b + 1);
        }
    }
    return x;
}

double wl_hist_quantile(const struct wl_hist *h, double q, double step_ns)
{
    if (h->count == 0)
        return 0;
    if (q >= 1)
        return (double)h->max;
    double v = step_ns > 1 ? wl_hist_spread_quantile(h, q, step_ns) : wl_hist_rank_quantile(h, q);
    if (v > (double)h->max)
        v = (double)h->max;
    return v > 0 ? v : 0;
}

double wl_hist_mean(const struct wl_hist *h)
{
    return h->count ? (double)h->sum / (double)h->count : 0;
}

/* Each entry is formatted into a scratch buffer first and copied only when it fits whole. */
size_t wl_hist_encode(const struct wl_hist *h, uint32_t *from, char *buf, size_t len)
{
    size_t used = 0;
    if (len)
        buf[0] = '\0';
    uint32_t i = *from < h->lo_i ? h->lo_i : *from;
    for (; h->count && i <= h->hi_i; i++) {
        if (!h->b[i])
            continue;
        char one[48];
        int n = snprintf(one, sizeof one, "%s%u:%llu", used ? "," : "", i, (unsigned long long)h->b[i]);
        if (used + (size_t)n + 1 > len)
            break;
        memcpy(buf + used, one, (size_t)n + 1);
        used += (size_t)n;
    }
    *from = i;
    return used;
}

/* strtoull with an end check: the number must be followed by want (or the end when want is '\0'). */
static int wl_hist_number(const char **s, char want, unsigned long long *out)
{
    char *end = NULL;
    errno = 0;
    if (**s < '0' || **s > '9')
        return -1;
    *out = strtoull(*s, &end, 10);
    if (errno || (*end != want && !(want == ',' && *end == '\0')))
        return -1;
    *s = end;
    return 0;
}

int wl_hist_decode(struct wl_hist *h, const char *text)
{
    const char *s = text;
    while (*s) {
        unsigned long long i, c;
        if (wl_hist_number(&s, ':', &i) != 0 || i >= WL_HIST_BUCKETS)
            return -1;
        s++;
        if (wl_hist_number(&s, ',', &c) != 0)
            return -1;
        if (*s == ',')
            s++;
        if (c == 0)
            continue;
        wl_hist_touch(h, (uint32_t)i);
        h->b[i] += c;
        h->count += c;
        if (wl_hist_lo((uint32_t)i) > h->max)
            h->max = wl_hist_lo((uint32_t)i);
    }
    return 0;
}
