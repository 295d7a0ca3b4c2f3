/* runresult.h - what one run of a measured process produced, as the results files record it: its
 * status, the wait4 and perf figures (struct hb_result) and the phase records it reported.
 *
 * Always holds: the counter order is the runs.csv column order (docs/DATA.md) and
 * hb_counter_names[] are those column names; hb_status_names[] are the status column's words;
 * this header depends on nothing of the runner but base/ (and the floor's wl_allocstat.h): it is the
 * record stage, below measure/, which fills it, and write/, which writes it, so neither includes
 * the other.
 */
#ifndef HEAPBENCH_RUNRESULT_H
#define HEAPBENCH_RUNRESULT_H

#include <stddef.h>
#include <stdint.h>

#include "base/machstate.h"
#include "base/util.h"
#include "wl_allocstat.h"

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
    HB_CTR_SYS_MMAP, /* system calls: the kernel's syscall tracepoints (sys_enter_*), counted per process tree */
    HB_CTR_SYS_MUNMAP,
    HB_CTR_SYS_MREMAP,
    HB_CTR_SYS_MADVISE,
    HB_CTR_SYS_BRK,
    HB_CTR_SYS_MPROTECT,
    HB_CTR_COUNT
};

/* Column names, "task_clock_ms", "page_faults", ... "dtlb_load_misses", "sys_mmap", ... "sys_mprotect". */
extern const char *const hb_counter_names[HB_CTR_COUNT];

enum hb_status { HB_OK, HB_FAILED, HB_TIMEOUT, HB_CRASHED, HB_SKIPPED, HB_OOM };
extern const char *const hb_status_names[]; /* "ok", "failed", "timeout", "crashed", "skipped", "oom" */

struct hb_rss_sample {
    double t;             /* seconds since the child was released */
    uint64_t rss_kb;
    int64_t anon_huge_kb; /* AnonHugePages (smaps_rollup), read every HB_HUGE_EVERY periodic samples; -1 between */
    char *phase;          /* owned: the phase whose record was read when this sample was taken; NULL: periodic */
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
    struct hb_mach_state machine;     /* the machine's load, steal, iowait, frequency over the run */
};

/* Frees the timeline and phase text of res; safe to call twice. */
void hb_result_free(struct hb_result *res);

/* One phase record of the phase protocol, fields as written by the workload. */
struct hb_phase {
    char *name, *seconds, *ops, *live_bytes, *rss_kb;
};

/* The quantiles of latency.csv: p50, p90, p99, p99.9, p99.99 (hb_lat_q, hb_lat_q_names). */
#define HB_LAT_NQ 5
extern const double hb_lat_q[HB_LAT_NQ];
extern const char *const hb_lat_q_names[HB_LAT_NQ];

/* The timed calls of one operation kind in one phase: a `latency` record and its `latency_hist`
 * records (docs/DATA.md), with the quantiles computed from the buckets (measure/latency.c). */
struct hb_latency {
    char *phase, *op;
    char *buckets;                /* "index:count,..." as the workload wrote them, records joined */
    size_t buckets_len, buckets_cap; /* its length and allocated size (it grows by doubling) */
    unsigned long long samples;
    double sum_ns, max_ns, mean_ns;
    double q[HB_LAT_NQ];          /* ns */
};

/* The phase pipe's fd number in the measured process (HEAPBENCH_PHASE_FD in its environment): its
 * records are what struct hb_phase_report holds. */
#define HB_PHASE_FD_CHILD 3

/* Everything a workload reported on its phase pipe (parsed by phases.c). */
struct hb_phase_report {
    char *served_by;        /* NULL when not reported */
    char own_allocator[128]; /* allocators of the program's own ('+'-separated, "" none): the probe's records */
    char *own_where;        /* the object of the first own_allocator record (NULL: none) */
    char *own_share;        /* own_share record: share of anonymous memory not held by it (NULL: none) */
    struct hb_phase *ph;
    size_t nph;
    struct hb_strv sizes;   /* request, usable, request, usable ... */
    struct hb_strv allocstats; /* phase, api, stat, layer, value, reason: WL_ALLOCSTAT_FIELDS per record */
    int verify_failed;
    char *verify_detail;
    struct hb_latency *lat; /* the latency entries whose buckets add up to their samples */
    size_t nlat;
    char *lat_clock;        /* latency_clock's source (rdtsc, monotonic); NULL when sampling was off */
    double lat_clock_ns;    /* and its cost per sample, ns */
    double lat_clock_step_ns; /* and its step (resolution), ns: what the quantiles are corrected for */
};

#endif
