/* runresult.c - the names of a run's statuses and counters, and freeing a result (see runresult.h).
 *
 * Always holds: hb_status_names[] follows enum hb_status and hb_counter_names[] follows
 * enum hb_counter, entry for entry; hb_lat_q_names[] names hb_lat_q[] (latency.csv columns).
 */
#include "record/runresult.h"

#include <stdlib.h>

const char *const hb_status_names[] = {"ok", "failed", "timeout", "crashed", "skipped", "oom"};

const char *const hb_counter_names[HB_CTR_COUNT] = {
    "task_clock_ms", "page_faults",  "context_switches", "cpu_migrations",   "cycles",
    "instructions",  "cache_misses", "branch_misses",    "dtlb_load_misses", "sys_mmap",
    "sys_munmap",    "sys_mremap",   "sys_madvise",      "sys_brk",          "sys_mprotect",
};

const double hb_lat_q[HB_LAT_NQ] = {0.5, 0.9, 0.99, 0.999, 0.9999};
const char *const hb_lat_q_names[HB_LAT_NQ] = {"p50", "p90", "p99", "p99.9", "p99.99"};

/* Frees the timeline and phase text of res; safe to call twice (runresult.h). */
void hb_result_free(struct hb_result *res)
{
    for (size_t i = 0; res->rss && i < res->rss_len; i++)
        free(res->rss[i].phase);
    free(res->rss);
    free(res->phase_text);
    res->rss = NULL;
    res->phase_text = NULL;
    res->rss_len = res->phase_len = 0;
}
