/* stress.c - randomised multi-threaded stress test of refmalloc (linked against it): threads
 * malloc/calloc/realloc/memalign/free blocks of mixed sizes, hand some blocks to other threads
 * through a shared mailbox (cross-thread frees), check every block's contents before freeing
 * it, run the heap checker while running and at the end, and end with no leak. Meanwhile one
 * thread forks (each child allocates and runs the heap checker) and one starts threads that it
 * cancels inside malloc_info (blocked writing to a full pipe), then calls malloc_info itself.
 * Usage: refmalloc-stress [threads] [ops per thread]. Prints PASS/FAIL lines and a summary.
 */
#include "tcheck.h"

#include <fcntl.h>
#include <malloc.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

int refmalloc_check_heap(void);

#define ST_SLOTS 512
#define ST_MAILBOX 256
#define RM_CACHE_MAX (64 * 7 * 1040) /* most bytes one default tcache holds */

typedef struct st_block {
    unsigned char *p;
    size_t n;
    unsigned tag;
} st_block;

static st_block st_mailbox[ST_MAILBOX];
static int st_mail_count;
static pthread_mutex_t st_mail_lock = PTHREAD_MUTEX_INITIALIZER;
static long st_ops;
static int st_corrupt, st_check_failed, st_null;

/* xorshift random numbers, one state per thread. */
static uint64_t st_rand(uint64_t *s)
{
    *s ^= *s << 13;
    *s ^= *s >> 7;
    *s ^= *s << 17;
    return *s;
}

/* A size: mostly small, some medium, a few above the mmap threshold. */
static size_t st_size(uint64_t *s)
{
    uint64_t r = st_rand(s) % 100;
    if (r < 70)
        return st_rand(s) % 512;
    if (r < 97)
        return st_rand(s) % 16384;
    return 100000 + st_rand(s) % 400000;
}

/* Fills b with the pattern of its tag. */
static void st_fill(st_block *b, size_t from)
{
    for (size_t i = from; i < b->n; i++)
        b->p[i] = (unsigned char)(b->tag + i * 7);
}

/* Checks b's pattern over its first n bytes; counts corruption. */
static void st_verify(const st_block *b, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (b->p[i] != (unsigned char)(b->tag + i * 7)) {
            __atomic_add_fetch(&st_corrupt, 1, __ATOMIC_RELAXED);
            return;
        }
}

/* Allocates a new block into b with a random API call. */
static void st_alloc(st_block *b, uint64_t *s, unsigned tag)
{
    size_t n = st_size(s);
    unsigned how = (unsigned)(st_rand(s) % 4);
    if (how == 0) {
        b->p = calloc(1, n);
        for (size_t i = 0; b->p && i < n; i++)
            if (b->p[i])
                __atomic_add_fetch(&st_corrupt, 1, __ATOMIC_RELAXED);
    } else if (how == 1) {
        b->p = memalign((size_t)32 << (st_rand(s) % 8), n);
    } else {
        b->p = malloc(n);
    }
    if (!b->p)
        __atomic_add_fetch(&st_null, 1, __ATOMIC_RELAXED);
    b->n = b->p ? n : 0;
    b->tag = tag;
    st_fill(b, 0);
}

/* Posts b to the mailbox, or frees it when the mailbox is full. */
static void st_post_or_free(st_block *b)
{
    pthread_mutex_lock(&st_mail_lock);
    int posted = st_mail_count < ST_MAILBOX;
    if (posted)
        st_mailbox[st_mail_count++] = *b;
    pthread_mutex_unlock(&st_mail_lock);
    if (!posted) {
        st_verify(b, b->n);
        free(b->p);
    }
    b->p = NULL;
    b->n = 0;
}

/* Frees one block some other thread posted, if any. */
static void st_free_mail(void)
{
    st_block b = {0};
    pthread_mutex_lock(&st_mail_lock);
    if (st_mail_count)
        b = st_mailbox[--st_mail_count];
    pthread_mutex_unlock(&st_mail_lock);
    if (b.p) {
        st_verify(&b, b.n);
        free(b.p);
    }
}

/* One thread's random walk over its slots. */
static void *st_thread(void *arg)
{
    uint64_t s = 0x9e3779b97f4a7c15ull * ((uintptr_t)arg + 1);
    st_block slots[ST_SLOTS];
    memset(slots, 0, sizeof slots);
    for (long op = 0; op < st_ops; op++) {
        st_block *b = &slots[st_rand(&s) % ST_SLOTS];
        unsigned what = (unsigned)(st_rand(&s) % 10);
        if (!b->p) {
            st_alloc(b, &s, (unsigned)op);
        } else if (what < 2) {
            size_t n = st_size(&s);
            st_verify(b, b->n);
            unsigned char *q = realloc(b->p, n);
            if (q || n == 0) {
                b->p = q;
                size_t old = b->n;
                b->n = q ? n : 0;
                st_verify(b, old < b->n ? old : b->n);
                st_fill(b, old < b->n ? old : b->n);
            }
        } else if (what < 4) {
            st_post_or_free(b);
        } else {
            st_verify(b, b->n);
            free(b->p);
            b->p = NULL;
            b->n = 0;
        }
        if (what == 9)
            st_free_mail();
        if (op % 20000 == 0 && refmalloc_check_heap() != 0)
            __atomic_add_fetch(&st_check_failed, 1, __ATOMIC_RELAXED);
    }
    for (int i = 0; i < ST_SLOTS; i++) {
        st_verify(&slots[i], slots[i].n);
        free(slots[i].p);
    }
    return NULL;
}

/* ---- alongside the workers: forks, and cancellations inside malloc_info ---- */

/* Enough rounds to meet every phase of the workers, few enough that forks (which copy the
 * address space while every arena is locked) do not dominate the run. */
#define ST_MAX_FORKS 60
#define ST_MAX_CANCELS 600
static volatile int st_done;                  /* the workers have finished */
static int st_forks, st_fork_bad;             /* forks made; children that failed */
static int st_cancels, st_cancel_bad, st_info_bad;

/* In a fork child (only the forking thread left): allocate, free, check the heap. */
static int st_child_ok(void)
{
    void *p[64];
    for (int i = 0; i < 64; i++)
        if ((p[i] = malloc((size_t)i * 97 + 1)) == NULL)
            return 0;
    for (int i = 0; i < 64; i++)
        free(p[i]);
    return refmalloc_check_heap() == 0;
}

/* Forks while the workers allocate, until they are done (at most ST_MAX_FORKS times). */
static void *st_forker(void *arg)
{
    (void)arg;
    do { /* at least once, even if the workers finish first */
        pid_t pid = fork();
        if (pid == 0)
            _exit(st_child_ok() ? 0 : 1);
        int status = -1;
        if (pid < 0 || waitpid(pid, &status, 0) != pid || status != 0)
            st_fork_bad++;
        st_forks++;
        usleep(20000); /* spread the forks over the run */
    } while (!__atomic_load_n(&st_done, __ATOMIC_ACQUIRE) && st_forks < ST_MAX_FORKS);
    return NULL;
}

static void *st_info_victim(void *fp)
{
    malloc_info(0, fp);
    return NULL;
}

/* A FILE on a pipe that is full and never read: every write to it blocks. */
static FILE *st_dead_end(void)
{
    int fds[2];
    if (pipe(fds) != 0)
        return NULL;
    fcntl(fds[1], F_SETFL, O_NONBLOCK);
    char block[4096];
    memset(block, '.', sizeof block);
    while (write(fds[1], block, sizeof block) > 0 || write(fds[1], block, 1) > 0)
        ;
    fcntl(fds[1], F_SETFL, 0);
    FILE *fp = fdopen(fds[1], "w");
    if (fp)
        setvbuf(fp, NULL, _IONBF, 0);
    return fp;
}

/* Cancels threads blocked inside malloc_info, each time followed by a malloc_info of its own
 * (which would hang if the cancelled thread had left a lock behind). */
static void *st_canceller(void *arg)
{
    (void)arg;
    FILE *fp = st_dead_end();
    if (!fp) {
        st_cancel_bad++;
        return NULL;
    }
    do { /* at least once, even if the workers finish first */
        pthread_t t;
        void *ret = NULL;
        pthread_create(&t, NULL, st_info_victim, fp);
        pthread_cancel(t);
        pthread_join(t, &ret);
        st_cancel_bad += ret != PTHREAD_CANCELED;
        st_cancels++;
        char *buf = NULL;
        size_t len = 0;
        FILE *mem = open_memstream(&buf, &len);
        st_info_bad += malloc_info(0, mem) != 0;
        fclose(mem);
        st_info_bad += strstr(buf, "</malloc>") == NULL;
        free(buf);
    } while (!__atomic_load_n(&st_done, __ATOMIC_ACQUIRE) && st_cancels < ST_MAX_CANCELS);
    return NULL;
}

int main(int argc, char **argv)
{
    int threads = argc > 1 ? atoi(argv[1]) : 4;
    st_ops = argc > 2 ? atol(argv[2]) : 200000;
    if (threads < 1 || threads > 64 || st_ops < 1) {
        fprintf(stderr, "usage: refmalloc-stress [threads 1..64] [ops per thread >= 1]\n");
        return 2;
    }
    struct mallinfo2 before = mallinfo2();
    pthread_t tid[64], forker, canceller;
    for (int i = 0; i < threads; i++)
        pthread_create(&tid[i], NULL, st_thread, (void *)(uintptr_t)i);
    pthread_create(&forker, NULL, st_forker, NULL);
    pthread_create(&canceller, NULL, st_canceller, NULL);
    for (int i = 0; i < threads; i++)
        pthread_join(tid[i], NULL);
    __atomic_store_n(&st_done, 1, __ATOMIC_RELEASE);
    pthread_join(forker, NULL);
    pthread_join(canceller, NULL);
    while (st_mail_count)
        st_free_mail();
    struct mallinfo2 after = mallinfo2();
    TCHECK("stress: every block kept its contents", st_corrupt == 0);
    TCHECK("stress: no allocation failed", st_null == 0);
    TCHECK("stress: heap checker passed while threads ran", st_check_failed == 0);
    TCHECK("stress: heap checker passes at the end", refmalloc_check_heap() == 0);
    printf("note: %d forks, %d cancellations inside malloc_info\n", st_forks, st_cancels);
    TCHECK("stress: forks while threads allocate: every child allocated and passed the heap checker",
           st_forks > 0 && st_fork_bad == 0);
    TCHECK("stress: threads cancelled inside malloc_info; malloc_info still works after each",
           st_cancels > 0 && st_cancel_bad == 0 && st_info_bad == 0);
    /* the exited threads returned their caches; only the main thread's may hold chunks, plus
     * glibc's own records of the exited threads (its stack cache keeps their TLS vectors) */
    size_t held_before = before.uordblks + before.hblkhd, held_after = after.uordblks + after.hblkhd;
    TCHECK("stress: no leak (in-use bytes, arena and mapped, back to the start)",
           held_after <= held_before + RM_CACHE_MAX + (64 << 10));
    return tcheck_summary();
}
