/* engine.h - executes a matrix: warm-up and measured rounds, one hb_launch() per cell visit,
 * the verdict on each run and its rows in the results directory.
 *
 * Always holds: a row is written only for a measured rep whose run has finished (or that was
 * decided without running: skipped, or preload impossible); a run cut by SIGINT/SIGTERM
 * writes nothing, the engine stops and reports interrupted; program setups are always
 * followed by their cleanups, interrupted or not.
 */
#ifndef HEAPBENCH_ENGINE_H
#define HEAPBENCH_ENGINE_H

#include <stddef.h>

#include "plan/matrix.h"
#include "measure/metric.h"
#include "plan/options.h"
#include "write/results.h"
#include "measure/runcg.h"
#include "run/summary.h"

struct hb_engine {
    const struct hb_options *o;
    struct hb_matrix *m;
    struct hb_results *r;
    const struct hb_metric *metrics;
    size_t nmetrics;
    struct hb_summary *summary;
    char *probe;           /* $ROOT/build/lib/libhbprobe.so */
    char *stats;           /* $ROOT/build/lib/libhbstats.so under --allocstats, else NULL */
    int thp_system;        /* the system's huge-page mode (thp.h), -1 unknown */
    int write_errors;
    const struct hb_runcg *cgroup; /* the run's cgroup (runcg.h); version 0: none */
};

/* Installs the SIGINT/SIGTERM handlers that stop the engine (and kill the child's group). */
void hb_engine_signals(void);

/* Runs every pending (rep, cell) of the matrix's shard. Returns 0 when it ran to the end,
 * 1 when it was interrupted by a signal. */
int hb_engine_run(struct hb_engine *e);

#endif
