/* threads3.c - a program for the recorder's tests: three threads with cross-thread frees and
 * reallocs, every malloc-API kind, and objects left live at the end.
 * usage: replay-threads3 N. Thread A makes N mallocs and N callocs; thread B frees the even
 * mallocs and reallocs the odd ones (objects of A), then frees what its reallocs made; thread C
 * frees the callocs whose index is not a multiple of 3 (the others stay live) and makes N/10
 * each of posix_memalign, aligned_alloc and memalign, which it frees itself.
 * Always holds: it prints one line "expect K=V ..." with the calls it made (by kind), its
 * cross-thread frees and the requested bytes it leaves live; nothing else depends on N. */
#include <malloc.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>

static long n;
static void **ps, **qs;
static _Atomic long made; /* how many of ps/qs thread A has published */
static long c_malloc, c_calloc, c_realloc, c_pm, c_aa, c_ma, live_bytes;
static _Atomic long c_free, c_cross; /* counted by threads B and C at once: a plain ++ lost updates */

static void *volatile sink; /* keeps the compiler from deleting an unused aligned_alloc/free pair */

static void wait_for(long i)
{
    while (atomic_load_explicit(&made, memory_order_acquire) <= i)
        sched_yield();
}

static void *thread_a(void *arg)
{
    for (long i = 0; i < n; i++) {
        ps[i] = malloc((size_t)(16 + i % 200));
        qs[i] = calloc(1, (size_t)(32 + i % 50));
        atomic_store_explicit(&made, i + 1, memory_order_release);
    }
    c_malloc += n;
    c_calloc += n;
    return arg;
}

static void *thread_b(void *arg)
{
    for (long i = 0; i < n; i++) {
        wait_for(i);
        if (i % 2 == 0) {
            free(ps[i]);
            c_free++;
            c_cross++;
        } else {
            ps[i] = realloc(ps[i], (size_t)(300 + i % 100));
            c_realloc++;
        }
    }
    for (long i = 1; i < n; i += 2) {
        free(ps[i]);
        c_free++;
    }
    return arg;
}

static void *thread_c(void *arg)
{
    for (long i = 0; i < n; i++) {
        wait_for(i);
        if (i % 3 != 0) {
            free(qs[i]);
            c_free++;
            c_cross++;
        } else {
            live_bytes += 32 + i % 50;
        }
    }
    for (long i = 0; i < n / 10; i++) {
        void *a = NULL, *b = aligned_alloc(128, 256), *c = memalign(256, 80);
        if (posix_memalign(&a, 64, 100) != 0)
            return NULL;
        sink = b;
        free(a);
        free(sink);
        free(c);
        c_pm++, c_aa++, c_ma++, c_free += 3;
    }
    return arg;
}

int main(int argc, char **argv)
{
    n = argc > 1 ? atol(argv[1]) : 0;
    static void *store[2][100000];
    if (n < 0 || n > 100000)
        return 2;
    ps = store[0];
    qs = store[1];
    pthread_t t[3];
    void *(*fns[3])(void *) = {thread_a, thread_b, thread_c};
    for (int i = 0; i < 3; i++)
        if (pthread_create(&t[i], NULL, fns[i], NULL) != 0)
            return 1;
    for (int i = 0; i < 3; i++)
        pthread_join(t[i], NULL);
    printf("expect malloc=%ld calloc=%ld realloc=%ld free=%ld posix_memalign=%ld aligned_alloc=%ld memalign=%ld cross=%ld live_bytes=%ld\n",
           c_malloc, c_calloc, c_realloc, (long)c_free, c_pm, c_aa, c_ma, (long)c_cross, live_bytes);
    return 0;
}
