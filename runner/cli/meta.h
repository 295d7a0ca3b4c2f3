/* meta.h - results/<run-id>/meta.json: the run's machine, software, options and allocators.
 *
 * Always holds: meta.json is replaced whole (tmp + rename); it is written at the start with
 * complete=false and end=null, and again at the end with end, complete and interrupted.
 * "argv" keeps the subcommand's arguments so that --resume can rebuild the same matrix.
 */
#ifndef HEAPBENCH_META_H
#define HEAPBENCH_META_H

#include <stddef.h>

#include "cli/inputs.h"
#include "base/machstate.h"
#include "plan/matrix.h"
#include "measure/metric.h"
#include "plan/options.h"
#include "write/results.h"
#include "measure/runcg.h"

struct hb_meta {
    const struct hb_options *opts;
    const struct hb_matrix *matrix;
    const struct hb_metric *metrics;
    size_t nmetrics;
    char *start;       /* ISO-8601 */
    char *end;         /* NULL while running */
    int complete, interrupted;
    const struct hb_runcg *cgroup; /* the run's cgroup (runcg.h): how processes are contained and limited */
    const struct hb_inputs *inputs; /* the files the cells read, with their sha256 (inputs.h) */
    struct hb_mach_snap mach0;     /* the machine when the run started (machstate.h) */
};

/* Writes meta.json of r; returns 0, or -1 when it could not be written. */
int hb_meta_write(const struct hb_results *r, const struct hb_meta *meta);

#endif
