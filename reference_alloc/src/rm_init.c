/* rm_init.c - refmalloc's process-wide parameters and its one-time initialisation.
 *
 * Always true: rm_ready goes 0 -> 1 -> 2 exactly once; the part done while it is 1 (tunables,
 * main arena) calls nothing that can allocate, so a re-entrant malloc can only happen after
 * rm_ready is 2 (pthread_key_create, pthread_atfork and the report may call malloc, and then
 * find the allocator ready). Another thread arriving during the first part waits for it.
 */
#include "rm_types.h"

#include <sched.h>

rm_params rm_mp = {
    .arena_max = 0,
    .arena_test = RM_ARENA_TEST,
    .tcache_count = RM_TCACHE_COUNT,
    .tcache_max = RM_TCACHE_MAX_BYTES,
    .tcache_bins = RM_TCACHE_BINS,
    .mmap_threshold = RM_MMAP_THRESHOLD,
    .trim_threshold = RM_TRIM_THRESHOLD,
    .top_pad = RM_TOP_PAD,
    .mmap_max = RM_MMAP_MAX,
    .mxfast = RM_MXFAST,
    .max_fast = 128, /* rm_max_fast_of(RM_MXFAST) */
};
volatile int rm_ready;

/* Initialises refmalloc once; safe to call from any thread at any time. */
void rm_init(void)
{
    int expected = 0;
    if (__atomic_compare_exchange_n(&rm_ready, &expected, 1, 0, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) {
        rm_tunables_load();
        rm_arena_init_main();
        __atomic_store_n(&rm_ready, 2, __ATOMIC_RELEASE);
        rm_tcache_init_once();
        rm_fork_register();
        rm_tunables_report();
        return;
    }
    while (__atomic_load_n(&rm_ready, __ATOMIC_ACQUIRE) != 2)
        sched_yield();
}

/* Initialises at load time too, before the program can start threads. */
__attribute__((constructor)) static void rm_init_at_load(void) { rm_ensure_init(); }
