/* slowmalloc.c - preloaded after the recorder by replay/tests/run, stands for a thread that a loaded
 * machine deschedules inside an allocator call at the program's exit: a malloc of exactly
 * SLOW_MALLOC_SIZE bytes sleeps HB_SLOW_MS ms (default 15000) inside the allocator, then is glibc's.
 * Always holds: every other call goes straight to glibc's malloc (__libc_malloc: no dlsym, which
 * may allocate). */
#include <stdlib.h>
#include <time.h>

#define SLOW_MALLOC_SIZE 777777 /* replay/tests/exitrace.c's "slow" call */

extern void *__libc_malloc(size_t n);

void *malloc(size_t n)
{
    if (n == SLOW_MALLOC_SIZE) {
        const char *v = getenv("HB_SLOW_MS");
        long ms = v && *v ? atol(v) : 15000;
        struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
        while (nanosleep(&ts, &ts) != 0)
            ;
    }
    return __libc_malloc(n);
}
