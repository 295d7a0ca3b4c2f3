/* rm_fork.c - fork safety: in a multi-threaded process every arena is locked before fork,
 * unlocked in the parent and re-initialised in the child (where only the forking thread
 * survives); a single-threaded fork takes no lock at all.
 *
 * Always true: the prepare handler takes, in this order, libc's stdio list lock
 * (_IO_list_lock), rm_list_lock, then each arena in ring order, and only when the process has
 * ever had a second thread; rm_fork_held says whether the forking thread holds them, and the
 * parent and child handlers release (parent) or reset (child) exactly what was taken.
 *
 * Why this order (glibc bug 19431). glibc's fork runs the pthread_atfork prepare handlers
 * first, then takes _IO_list_lock, then its own malloc locks. Its malloc locks come last on
 * purpose: fflush(NULL) holds _IO_list_lock while it waits for each FILE's lock, and getdelim
 * holds a FILE's lock while it reallocs. An interposed malloc that locked its arenas in its
 * prepare handler would hold them while waiting for _IO_list_lock in fork: fork waits for
 * fflush (list lock), fflush waits for getdelim (FILE lock), getdelim waits for fork (arena
 * lock) - a cycle. So the prepare handler takes _IO_list_lock itself before any arena lock:
 * that is glibc's own order (list lock, then malloc), and no refmalloc code takes a FILE or the
 * list lock while holding an arena lock (malloc_info prints only after unlocking), so no cycle
 * can form. _IO_list_lock is recursive: fork's own _IO_list_lock after ours only counts up, the
 * parent unlocks once in fork and once here; in the child, fork resets the lock and so does the
 * child handler (harmless twice; needed if fork judged the process single-threaded).
 * Our handler is registered at initialisation, before the program's own, so its prepare runs
 * last: handlers registered later may still call malloc.
 *
 * Why no lock when single-threaded (as glibc 2.36, which takes its malloc locks only when
 * multi-threaded): a signal handler may call fork while the program is inside fork; with only
 * one thread no other thread can be inside an arena, and the nested fork would wait forever
 * for the locks its own interrupted caller holds. Arenas are not locked by malloc then either
 * (rm_lock), so there is nothing to protect.
 */
#include "rm_types.h"

#include <sys/single_threaded.h>

/* libc's stdio list lock (exported by glibc since 2.2.5; used by fork the same way). */
extern void _IO_list_lock(void);
extern void _IO_list_unlock(void);
extern void _IO_list_resetlock(void);

static int rm_fork_held; /* written only by the thread holding the locks */

/* Before fork: no arena may be mid-update, and stdio's list lock comes first. */
static void rm_fork_prepare(void)
{
    if (rm_ready != 2 || __libc_single_threaded)
        return;
    _IO_list_lock();
    pthread_mutex_lock(&rm_list_lock);
    for (rm_arena *a = &rm_main_arena; a; a = rm_arena_next(a))
        rm_arena_lock(a);
    rm_fork_held = 1;
}

/* After fork, in the parent: releases what prepare took. */
static void rm_fork_parent(void)
{
    if (!rm_fork_held)
        return;
    rm_fork_held = 0;
    for (rm_arena *a = &rm_main_arena; a; a = rm_arena_next(a))
        rm_arena_unlock(a);
    pthread_mutex_unlock(&rm_list_lock);
    _IO_list_unlock();
}

/* After fork, in the child: fresh locks; arenas of vanished threads become free for reuse. */
static void rm_fork_child(void)
{
    if (!rm_fork_held)
        return;
    rm_fork_held = 0;
    rm_arena_after_fork_child();
    _IO_list_resetlock();
}

/* Registers the three handlers (once, from rm_init). */
void rm_fork_register(void) { pthread_atfork(rm_fork_prepare, rm_fork_parent, rm_fork_child); }
