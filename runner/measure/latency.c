/* latency.c - parses the latency records and computes their quantiles (see latency.h).
 *
 * Always holds: entries keep the order of their latency records; each one's buckets text is
 * the concatenation (',' between) of its latency_hist records, as the workload wrote them; after
 * hb_latency_finish every entry left has buckets that add up to its samples.
 */
#include "measure/latency.h"
#include "wl_hist.h"

#include <stdlib.h>
#include <string.h>

/* The last entry of phase and op (the one its latency_hist records belong to), or NULL. */
static struct hb_latency *hb_latency_find(struct hb_phase_report *rep, const char *phase, const char *op)
{
    for (size_t i = rep->nlat; i-- > 0;)
        if (strcmp(rep->lat[i].phase, phase) == 0 && strcmp(rep->lat[i].op, op) == 0)
            return &rep->lat[i];
    return NULL;
}

/* Appends a bucket list to an entry's text, in place (copying the whole text per record made
 * many records of one entry quadratic). */
static void hb_latency_add_buckets(struct hb_latency *l, const char *text)
{
    size_t n = strlen(text), need = l->buckets_len + 1 + n + 1;
    if (need > l->buckets_cap)
        l->buckets = hb_xrealloc(l->buckets, l->buckets_cap = 2 * need);
    if (l->buckets_len)
        l->buckets[l->buckets_len++] = ',';
    memcpy(l->buckets + l->buckets_len, text, n + 1);
    l->buckets_len += n;
}

int hb_latency_take(struct hb_phase_report *rep, const struct hb_strv *f)
{
    const char *kind = f->v[0];
    if (strcmp(kind, "latency_clock") == 0 && f->n >= 6) {
        free(rep->lat_clock);
        rep->lat_clock = hb_xstrdup(f->v[3]);
        rep->lat_clock_ns = strtod(f->v[4], NULL);
        rep->lat_clock_step_ns = f->n >= 7 ? strtod(f->v[6], NULL) : 0;
    } else if (strcmp(kind, "latency") == 0 && f->n >= 6) {
        rep->lat = hb_xappend(rep->lat, rep->nlat, sizeof *rep->lat);
        struct hb_latency *l = &rep->lat[rep->nlat++];
        memset(l, 0, sizeof *l);
        l->phase = hb_xstrdup(f->v[1]);
        l->op = hb_xstrdup(f->v[2]);
        l->samples = strtoull(f->v[3], NULL, 10);
        l->sum_ns = strtod(f->v[4], NULL);
        l->max_ns = strtod(f->v[5], NULL);
        l->buckets = hb_xstrdup("");
    } else if (strcmp(kind, "latency_hist") == 0 && f->n >= 4) {
        struct hb_latency *l = hb_latency_find(rep, f->v[1], f->v[2]);
        if (l)
            hb_latency_add_buckets(l, f->v[3]);
    } else {
        return 0;
    }
    return 1;
}

/* Decodes one entry and computes its figures (quantiles corrected for the clock's step); 0 when its buckets parse and count exactly its
 * samples, -1 otherwise (a cut or damaged record). */
static int hb_latency_one(struct hb_latency *l, struct wl_hist *h, double step_ns)
{
    wl_hist_clear(h);
    if (wl_hist_decode(h, l->buckets) != 0 || h->count != l->samples || l->samples == 0)
        return -1;
    h->max = (uint64_t)l->max_ns;
    for (int q = 0; q < HB_LAT_NQ; q++)
        l->q[q] = wl_hist_quantile(h, hb_lat_q[q], step_ns);
    l->mean_ns = l->sum_ns / (double)l->samples;
    return 0;
}

/* Frees one entry's strings. */
static void hb_latency_drop(struct hb_latency *l)
{
    free(l->phase), free(l->op), free(l->buckets);
}

/* Entries that do not decode are dropped, so that every row of latency.csv is complete. */
void hb_latency_finish(struct hb_phase_report *rep)
{
    if (!rep->nlat)
        return;
    struct wl_hist *h = hb_xcalloc(1, sizeof *h);
    size_t kept = 0;
    for (size_t i = 0; i < rep->nlat; i++) {
        if (hb_latency_one(&rep->lat[i], h, rep->lat_clock_step_ns) == 0)
            rep->lat[kept++] = rep->lat[i];
        else
            hb_latency_drop(&rep->lat[i]);
    }
    rep->nlat = kept;
    free(h);
}

void hb_latency_free(struct hb_phase_report *rep)
{
    for (size_t i = 0; i < rep->nlat; i++)
        hb_latency_drop(&rep->lat[i]);
    free(rep->lat);
    free(rep->lat_clock);
    rep->lat = NULL;
    rep->nlat = 0;
    rep->lat_clock = NULL;
}
