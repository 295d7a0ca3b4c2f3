/* wl_latency.c - per-thread sampling of malloc-API calls into histograms, written per phase (see wl_latency.h).
 * Always holds: each thread records only into its own recorder (mmap'd pages, never malloc'd, so
 * the allocator under test neither serves nor sees them); recorders stay on one list until the
 * process ends, so a thread's samples survive its exit until the next flush; the countdowns of
 * mode off are so large that the slow path runs once per thread and kind. */
#include "wl_latency.h"
#include "wl_hist.h"
#include "wl_record.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

struct wl_lat_thread {
    struct wl_lat_thread *next;
    struct wl_hist *h[WL_OP_COUNT]; /* mmap'd on the first sample of that kind */
};

__thread struct wl_lat_local wl_lat_me;

static enum wl_lat_mode wl_lat_the_mode = WL_LAT_OFF;
static int64_t wl_lat_every = WL_LAT_EVERY_DEFAULT;
static struct wl_lat_thread *wl_lat_threads;
static uint64_t wl_lat_nthreads;
static pthread_mutex_t wl_lat_lock = PTHREAD_MUTEX_INITIALIZER;

static const char *const wl_lat_ops[WL_OP_COUNT] = {"malloc", "free", "realloc", "calloc"};

/* Zeroed memory of n bytes from mmap (exit 1 when there is none: a sampler cannot go on without it). */
static void *wl_lat_pages(size_t n)
{
    void *p = mmap(NULL, n, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) {
        fprintf(stderr, "workload: out of memory for latency histograms; run with --latency=off\n");
        exit(1);
    }
    return p;
}

int wl_lat_configure(const char *mode, long long every)
{
    int m = wl_lat_mode_parse(mode);
    if (m < 0 || every < 1 || every > (1LL << 40))
        return -1;
    wl_lat_the_mode = (enum wl_lat_mode)m;
    wl_lat_every = every;
    return 0;
}

enum wl_lat_mode wl_lat_mode(void)
{
    return wl_lat_the_mode;
}

const char *wl_lat_op_name(enum wl_op op)
{
    return wl_lat_ops[op];
}

/* Puts the calling thread's recorder on the list; seeds its gap generator from its position. */
static void wl_lat_register(void)
{
    struct wl_lat_thread *t = wl_lat_pages(sizeof *t);
    pthread_mutex_lock(&wl_lat_lock);
    t->next = wl_lat_threads;
    wl_lat_threads = t;
    uint64_t n = ++wl_lat_nthreads;
    pthread_mutex_unlock(&wl_lat_lock);
    wl_lat_me.rec = t;
    wl_lat_me.rng = n * 0x9e3779b97f4a7c15ULL | 1;
}

/* The next gap: uniform in 1..2*every-1 (mean every), from a per-thread xorshift64. */
static int64_t wl_lat_gap(void)
{
    uint64_t x = wl_lat_me.rng;
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    wl_lat_me.rng = x;
    return 1 + (int64_t)(x % (uint64_t)(2 * wl_lat_every - 1));
}

/* The first call of a thread only arms the countdown (it is not timed), so that first calls,
 * which set up per-thread allocator state, are sampled no more often than any other. */
int wl_lat_due(enum wl_op op)
{
    if (wl_lat_the_mode == WL_LAT_OFF) {
        wl_lat_me.countdown[op] = INT64_MAX;
        return 0;
    }
    if (!wl_lat_me.rec) {
        wl_lat_register();
        wl_lat_me.countdown[op] = wl_lat_the_mode == WL_LAT_ALL ? 1 : wl_lat_gap();
        return wl_lat_the_mode == WL_LAT_ALL;
    }
    wl_lat_me.countdown[op] = wl_lat_the_mode == WL_LAT_ALL ? 1 : wl_lat_gap();
    return 1;
}

void wl_lat_record(enum wl_op op, uint64_t ticks)
{
    struct wl_lat_thread *t = wl_lat_me.rec;
    if (!t->h[op]) {
        t->h[op] = wl_lat_pages(sizeof *t->h[op]);
        wl_hist_clear(t->h[op]);
    }
    wl_hist_add(t->h[op], wl_clock_ns(ticks), 1);
}

void wl_lat_start(void)
{
    if (wl_lat_the_mode == WL_LAT_OFF)
        return;
    wl_clock_init();
    wl_record("latency_clock\t%s\t%lld\t%s\t%.1f\t%.3f\t%.3f\n", wl_lat_mode_names[wl_lat_the_mode],
              wl_lat_the_mode == WL_LAT_ALL ? 1LL : (long long)wl_lat_every, wl_clock_info.source,
              wl_clock_info.cost_ns, wl_clock_info.mhz, wl_clock_info.step_ns);
    if (wl_lat_the_mode == WL_LAT_ALL)
        fprintf(stderr, "workload: --latency=all times every call: it adds ~%.0f ns of clock and a histogram update "
                        "to each, so throughput is distorted; use --latency=sampled to compare speed\n",
                wl_clock_info.cost_ns);
}

/* Writes the summary record, then the buckets in as many records as the 512-byte limit needs. */
static void wl_lat_write(const char *phase, const char *op, const struct wl_hist *h)
{
    wl_record("latency\t%s\t%s\t%llu\t%llu\t%llu\n", phase, op, (unsigned long long)h->count,
              (unsigned long long)h->sum, (unsigned long long)h->max);
    size_t fixed = strlen("latency_hist\t\t\t\n") + strlen(phase) + strlen(op);
    if (fixed + 32 > WL_RECORD_MAX)
        return; /* a phase name this long cannot carry buckets; the summary record still counts them */
    char buf[WL_RECORD_MAX];
    uint32_t from = 0;
    while (wl_hist_encode(h, &from, buf, WL_RECORD_MAX - fixed) > 0)
        wl_record("latency_hist\t%s\t%s\t%s\n", phase, op, buf);
}

void wl_lat_flush(const char *phase)
{
    static struct wl_hist *sum;
    if (wl_lat_the_mode == WL_LAT_OFF)
        return;
    if (!sum)
        sum = wl_lat_pages(sizeof *sum);
    pthread_mutex_lock(&wl_lat_lock);
    for (int op = 0; op < WL_OP_COUNT; op++) {
        wl_hist_clear(sum);
        for (struct wl_lat_thread *t = wl_lat_threads; t; t = t->next) {
            if (t->h[op]) {
                wl_hist_merge(sum, t->h[op]);
                wl_hist_clear(t->h[op]);
            }
        }
        if (sum->count)
            wl_lat_write(phase, wl_lat_ops[op], sum);
    }
    pthread_mutex_unlock(&wl_lat_lock);
}
