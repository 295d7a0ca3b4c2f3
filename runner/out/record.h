/* record.h - what one run of a measured process produced, as the results files record it: its
 * status, the wait4 and perf figures (struct hb_result) and the phase records it reported.
 *
 * Always holds: the counter order is the runs.csv column order (docs/DATA.md) and
 * hb_counter_names[] are those column names; hb_status_names[] are the status column's words;
 * this header depends on nothing of the runner but util.h, so the output stage (out/) can
 * format a run without knowing how it was measured (measure/) or planned (plan/).
 */
#ifndef HEAPBENCH_RECORD_H
#define HEAPBENCH_RECORD_H

#include <stddef.h>
#include <stdint.h>

#include "util.h"

/* The perf counters, in the column order of runs.csv (docs/DATA.md). */
enum hb_counter {
    HB_CTR_TASK_CLOCK, /* reported in ms */
    HB_CTR_PAGE_FAULTS,
    HB_CTR_CONTEXT_SWITCHES,
    HB_CTR_CPU_MIGRATIONS,
    HB_CTR_CYCLES,
    HB_CTR_INSTRUCTIONS,
    HB_CTR_CACHE_MISSES,
    HB_CTR_BRANCH_MISSES,
    HB_CTR_DTLB_LOAD_MISSES,
    HB_CTR_COUNT
};

/* Column names, "task_clock_ms", "page_faults", ... "dtlb_load_misses". */
extern const char *const hb_counter_names[HB_CTR_COUNT];

enum hb_status { HB_OK, HB_FAILED, HB_TIMEOUT, HB_CRASHED, HB_SKIPPED, HB_OOM };
extern const char *const hb_status_names[]; /* "ok", "failed", "timeout", "crashed", "skipped", "oom" */

struct hb_rss_sample {
    double t;        /* seconds since the child was released */
    uint64_t rss_kb;
};

struct hb_result {
    enum hb_status status;  /* HB_OK here only means "exited 0"; served_by is checked by the caller */
    char reason[256];       /* why, for any status but ok */
    int exit_code;          /* -1 when killed by a signal */
    int signal;             /* 0 when it exited */
    double wall_s, user_s, sys_s;
    long maxrss_kb, minflt, majflt, nvcsw, nivcsw;
    int counter_ok[HB_CTR_COUNT];     /* 1: value below is real; 0: unavailable (empty column) */
    double counter[HB_CTR_COUNT];
    struct hb_rss_sample *rss;        /* rss_len samples */
    size_t rss_len;
    char *phase_text;                 /* everything the child wrote on the phase pipe, NUL-terminated */
    size_t phase_len;
    char leaked[256];                 /* "" or "left N processes behind, killed: ..." (reaper.h) */
};

/* Frees the timeline and phase text of res; safe to call twice. */
void hb_result_free(struct hb_result *res);

/* One phase record of the phase protocol, fields as written by the workload. */
struct hb_phase {
    char *name, *seconds, *ops, *live_bytes, *rss_kb;
};

/* Everything a workload reported on its phase pipe (parsed by phases.c). */
struct hb_phase_report {
    char *served_by;        /* NULL when not reported */
    struct hb_phase *ph;
    size_t nph;
    struct hb_strv sizes;   /* request, usable, request, usable ... */
    int verify_failed;
    char *verify_detail;
};

#endif
