/* latency.h - the latency records of the phase protocol (latency_clock, latency, latency_hist;
 * docs/DATA.md) turned into one struct hb_latency per phase and operation, with its quantiles.
 *
 * Always holds: the bucket formula and the quantile rule are contract/wl_hist.h's (the one
 * definition in C); an entry whose buckets do not decode or add up to its samples is dropped
 * (latency.csv has no empty field); a latency_hist record without its latency record before it
 * is ignored.
 */
#ifndef HEAPBENCH_LATENCY_H
#define HEAPBENCH_LATENCY_H

#include "record/runresult.h"
#include "base/util.h"

/* Takes one record's fields (f->v[0] is "latency_clock", "latency" or "latency_hist") into rep;
 * returns 1 when it was a latency record, 0 otherwise. */
int hb_latency_take(struct hb_phase_report *rep, const struct hb_strv *f);

/* Decodes every entry's buckets and computes its quantiles and mean (after the last record). */
void hb_latency_finish(struct hb_phase_report *rep);

/* Frees the latency entries of rep. */
void hb_latency_free(struct hb_phase_report *rep);

#endif
