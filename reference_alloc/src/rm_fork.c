/* rm_fork.c - fork safety: every arena is locked before fork, unlocked in the parent and
 * re-initialised in the child (where only the forking thread survives).
 *
 * Always true: the prepare handler takes rm_list_lock first, then each arena in ring order,
 * so no other thread can be inside any arena or be creating one while the address space is
 * copied; locks are taken unconditionally here (even single-threaded) and released the same way.
 */
#include "rm_types.h"

/* Before fork: no arena may be mid-update. */
static void rm_fork_prepare(void)
{
    if (rm_ready != 2)
        return;
    pthread_mutex_lock(&rm_list_lock);
    for (rm_arena *a = &rm_main_arena; a; a = rm_arena_next(a))
        pthread_mutex_lock(&a->lock);
}

/* After fork, in the parent: releases what prepare took. */
static void rm_fork_parent(void)
{
    if (rm_ready != 2)
        return;
    for (rm_arena *a = &rm_main_arena; a; a = rm_arena_next(a))
        pthread_mutex_unlock(&a->lock);
    pthread_mutex_unlock(&rm_list_lock);
}

/* After fork, in the child: fresh mutexes; arenas of vanished threads become free for reuse. */
static void rm_fork_child(void)
{
    if (rm_ready != 2)
        return;
    rm_arena_after_fork_child();
}

/* Registers the three handlers (once, from rm_init). */
void rm_fork_register(void) { pthread_atfork(rm_fork_prepare, rm_fork_parent, rm_fork_child); }
