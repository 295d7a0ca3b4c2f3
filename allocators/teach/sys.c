/* sys.c - the process-wide resources every teaching allocator uses: the one global lock
 * (kept consistent across fork) and the program break.
 *
 * Invariants: teach_lock is never held across a fork (the prepare handler takes it, both
 * sides release it), so a child of a multithreaded program can allocate; teach_sbrk keeps
 * the break 16-byte aligned for the memory it returns even if the program moved it.
 */
#include "teach.h"

#include <errno.h>
#include <unistd.h>

pthread_mutex_t teach_lock = PTHREAD_MUTEX_INITIALIZER;

/* Fork handlers: hold the lock over fork() so no half-done operation is copied into the child. */
static void teach_fork_prepare(void) { pthread_mutex_lock(&teach_lock); }
static void teach_fork_release(void) { pthread_mutex_unlock(&teach_lock); }

/* Registers the fork handlers when the library is loaded (before main, outside the lock). */
__attribute__((constructor)) static void teach_sys_init(void)
{
    pthread_atfork(teach_fork_prepare, teach_fork_release, teach_fork_release);
}

/* See teach.h. sbrk(2) takes a signed increment: refuse what does not fit one. */
void *teach_sbrk(size_t bytes)
{
    char *brk = sbrk(0);
    if (brk == (char *)-1)
        goto nomem;
    size_t pad = teach_round_up((uintptr_t)brk, TEACH_ALIGN) - (uintptr_t)brk;
    if (bytes > (size_t)INTPTR_MAX - pad)
        goto nomem;
    if (sbrk((intptr_t)(pad + bytes)) == (void *)-1)
        goto nomem;
    return brk + pad;
nomem:
    errno = ENOMEM;
    return NULL;
}
