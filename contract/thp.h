/* thp.h - the transparent-huge-page mode of one process: never, madvise or always, how each allocator is switched, and AnonHugePages.
 * Always holds: `never` is enforced by the kernel (prctl(PR_SET_THP_DISABLE) in the process before
 * exec; inherited, so the other modes clear it); `madvise` changes nothing (each allocator's own
 * default under the system setting); `always` also turns on the allocator's own switch where it
 * has one. The mode in effect is computed, never assumed: the kernel cannot widen a process
 * beyond the system setting, and an allocator without a switch cannot ask for huge pages.
 * Depends on nothing but libc (a file of the floor, contract/README.md): linked into the runner,
 * build/hb-thp (allocators/thp/) and the statistics library (allocators/stats/). */
#ifndef HB_THP_H
#define HB_THP_H

#include <stddef.h>

enum hb_thp { HB_THP_NEVER, HB_THP_MADVISE, HB_THP_ALWAYS };

/* The mode named by word ("never", "madvise", "always"), or -1. */
int hb_thp_parse(const char *word);

/* The word of a mode ("?" for anything else). */
const char *hb_thp_name(int mode);

/* The system setting, the bracketed word of /sys/kernel/mm/transparent_hugepage/enabled, or -1. */
int hb_thp_system(void);

/* The environment variable through which an allocator of this tunables family (registry
 * column) selects huge pages, or NULL when it has none (tcmalloc, none; glibc when preloaded
 * is set: glibc's tunables then reach a malloc that does not serve the process). */
const char *hb_thp_env_name(const char *family, int preloaded);

/* The value that variable must have for mode, merged into its current value cur (NULL when
 * unset: MALLOC_CONF and GLIBC_TUNABLES keep their other settings), written to buf; returns buf,
 * or NULL when mode changes nothing (madvise, or no switch). */
const char *hb_thp_env_value(int mode, const char *family, int preloaded, const char *cur, char *buf, size_t n);

/* In the process itself (a child before exec): sets PR_SET_THP_DISABLE for never, clears it
 * otherwise. Returns 0, or -errno when the kernel refuses. */
int hb_thp_prctl(int mode);

/* The mode an environment set asks for with the word HEAPBENCH_THP=MODE (an axis value: each
 * --env set its own mode), dflt when it has none, -2 when the word names no mode. */
int hb_thp_of_env(const char *env_set, int dflt);

/* The mode actually in effect for a process started with mode under system setting sys. */
const char *hb_thp_in_effect(int mode, int sys, const char *family, int preloaded);

/* AnonHugePages in KiB from the text of a smaps or smaps_rollup file (the first line that starts
 * with it); -1 when there is none. */
long long hb_thp_anon_huge_kb(const char *text);

#endif
