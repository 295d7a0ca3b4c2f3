/* threads.c - refmalloc under thread churn and fork (linked against it): thousands of threads
 * start, allocate and exit without the heap growing or the arena count passing its limit; a
 * multi-threaded process forks repeatedly without deadlock (alarm as the timeout) and the child
 * can allocate, start a thread and pass the heap checker; free keeps errno while threads wait
 * for the same arena lock (its futex sleep fails with EAGAIN or EINTR at times).
 * Prints PASS/FAIL lines and a summary.
 */
#include "rmtest.h"
#include "tcheck.h"

#include <errno.h>
#include <malloc.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

int refmalloc_check_heap(void);

static volatile int th_stop;

/* A short-lived thread: a burst of allocations of mixed sizes, all freed. */
static void *th_short(void *arg)
{
    void *volatile p[64]; /* volatile: the compiler must not elide the malloc/free pairs */
    for (int i = 0; i < 64; i++)
        p[i] = malloc((size_t)(i * 37 + (int)(uintptr_t)arg % 50) * 8);
    for (int i = 0; i < 64; i++)
        free(p[i]);
    return NULL;
}

/* Starts and joins n threads, 8 at a time. */
static void th_churn(int n)
{
    for (int i = 0; i < n; i += 8) {
        pthread_t t[8];
        for (int k = 0; k < 8; k++)
            pthread_create(&t[k], NULL, th_short, (void *)(uintptr_t)(i + k));
        for (int k = 0; k < 8; k++)
            pthread_join(t[k], NULL);
    }
}

/* Thread starts and exits: arenas are reused, the heap does not grow. */
static void th_test_churn(void)
{
    th_churn(200);
    size_t arena_after_warmup = mallinfo2().arena;
    int arenas_after_warmup = rmt_arena_count();
    th_churn(2000);
    size_t arena_end = mallinfo2().arena;
    int arenas_end = rmt_arena_count();
    /* at most 8 threads live at once: their arenas plus main, however many threads ran */
    TCHECK("thread churn: at most 9 arenas after 2200 threads (exited threads' arenas reused)",
           arenas_after_warmup <= 9 && arenas_end <= 9);
    TCHECK("thread churn: heap does not grow (2000 more threads)", arena_end <= arena_after_warmup + (1 << 20));
    TCHECK("thread churn: heap check", refmalloc_check_heap() == 0);
}

/* A background thread allocating and freeing until told to stop. */
static void *th_busy(void *arg)
{
    unsigned s = (unsigned)(uintptr_t)arg;
    while (!th_stop) {
        void *volatile p = malloc((s = s * 1103515245 + 12345) % 5000);
        void *volatile q = malloc(s % 300000);
        free(p);
        free(q);
    }
    return NULL;
}

/* In a fork child: allocate, run a thread, check the heap; exit 0 only when all is well. */
static void th_child(void)
{
    void *p = malloc(1000);
    pthread_t t;
    int ok = p && pthread_create(&t, NULL, th_short, NULL) == 0 && pthread_join(t, NULL) == 0;
    free(p);
    _exit(ok && refmalloc_check_heap() == 0 ? 0 : 1);
}

/* Forks 40 times while 4 threads allocate; alarm(60) turns a deadlock into a failure. */
static void th_test_fork(void)
{
    pthread_t t[4];
    for (int i = 0; i < 4; i++)
        pthread_create(&t[i], NULL, th_busy, (void *)(uintptr_t)(i + 1));
    alarm(60);
    int good = 0;
    for (int i = 0; i < 40; i++) {
        pid_t pid = fork();
        if (pid == 0)
            th_child();
        int st = 0;
        if (pid > 0 && waitpid(pid, &st, 0) == pid && WIFEXITED(st) && WEXITSTATUS(st) == 0)
            good++;
    }
    th_stop = 1;
    for (int i = 0; i < 4; i++)
        pthread_join(t[i], NULL);
    alarm(0);
    TCHECK("fork from a multi-threaded process: 40 children allocate, start a thread, pass the check",
           good == 40);
    TCHECK("fork: parent heap check", refmalloc_check_heap() == 0);
}

enum { TH_ERRNO_THREADS = 4, TH_ERRNO_BLOCKS = 2048, TH_ERRNO_ROUNDS = 100 };
static void *th_errno_blocks[TH_ERRNO_THREADS][TH_ERRNO_BLOCKS];
static pthread_barrier_t th_errno_start;

/* Frees this thread's share of main-arena blocks (too large for the tcache and the fastbins,
 * so each free takes the main arena's lock), checking errno after each; returns the number of
 * frees that changed it. */
static void *th_errno_freer(void *arg)
{
    void **mine = th_errno_blocks[(uintptr_t)arg];
    uintptr_t changed = 0;
    pthread_barrier_wait(&th_errno_start);
    for (int i = 0; i < TH_ERRNO_BLOCKS; i++) {
        errno = 4242;
        free(mine[i]);
        changed += errno != 4242;
    }
    return (void *)changed;
}

/* Rounds of four threads freeing at once into the main arena while the main thread allocates
 * there: the arena lock is contended, and its futex waits must not leak into errno. */
static void th_test_errno(void)
{
    /* arena chunks even in the run under MALLOC_MMAP_THRESHOLD_=0 (a mapped chunk takes no lock,
     * and a million mappings would outlast the test's time limit on a loaded machine) */
    mallopt(M_MMAP_THRESHOLD, 1 << 20);
    uintptr_t changed = 0;
    for (int r = 0; r < TH_ERRNO_ROUNDS; r++) {
        for (int t = 0; t < TH_ERRNO_THREADS; t++)
            for (int i = 0; i < TH_ERRNO_BLOCKS; i++)
                th_errno_blocks[t][i] = malloc(1100 + (size_t)(i % 7) * 16);
        pthread_barrier_init(&th_errno_start, NULL, TH_ERRNO_THREADS + 1);
        pthread_t th[TH_ERRNO_THREADS];
        for (int t = 0; t < TH_ERRNO_THREADS; t++)
            pthread_create(&th[t], NULL, th_errno_freer, (void *)(uintptr_t)t);
        pthread_barrier_wait(&th_errno_start);
        for (int i = 0; i < TH_ERRNO_BLOCKS; i++) { /* more lock traffic on the main arena */
            errno = 4242;
            free(malloc(1100));
            changed += errno != 4242;
        }
        for (int t = 0; t < TH_ERRNO_THREADS; t++) {
            void *n;
            pthread_join(th[t], &n);
            changed += (uintptr_t)n;
        }
        pthread_barrier_destroy(&th_errno_start);
    }
    TCHECK("free keeps errno while 5 threads contend for one arena lock", changed == 0);
    TCHECK("errno under contention: heap check", refmalloc_check_heap() == 0);
}

int main(void)
{
    th_test_churn();
    th_test_fork();
    th_test_errno();
    return tcheck_summary();
}
