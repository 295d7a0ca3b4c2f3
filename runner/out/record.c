/* record.c - the names of a run's statuses and counters, and freeing a result (see record.h).
 *
 * Always holds: hb_status_names[] follows enum hb_status and hb_counter_names[] follows
 * enum hb_counter, entry for entry.
 */
#include "record.h"

#include <stdlib.h>

const char *const hb_status_names[] = {"ok", "failed", "timeout", "crashed", "skipped", "oom"};

const char *const hb_counter_names[HB_CTR_COUNT] = {
    "task_clock_ms", "page_faults",  "context_switches", "cpu_migrations",   "cycles",
    "instructions",  "cache_misses", "branch_misses",    "dtlb_load_misses",
};

/* Frees the timeline and phase text of res; safe to call twice (record.h). */
void hb_result_free(struct hb_result *res)
{
    free(res->rss);
    free(res->phase_text);
    res->rss = NULL;
    res->phase_text = NULL;
    res->rss_len = res->phase_len = 0;
}
