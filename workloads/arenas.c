/* arenas.c - many threads alive at once, each allocating in turn: how many arenas glibc makes, what they reserve, what mallinfo2 sees.
 *
 * Claims checked: glibc caps its arenas at 8 x cores; a non-main arena reserves its heap in
 * 64 MiB units and touches only what it uses; MALLOC_ARENA_MAX=2 lowers a multithreaded
 * program's RSS; mallinfo2() reports only the main arena. --threads threads are created (stacks
 * of 256 KiB) and stay alive to the end; one after another (a turn each, so the arena each
 * gets does not depend on timing) each allocates --kib KiB in blocks of 64..1024 bytes, keeps
 * one block in --keep and frees the rest. Phases: `fill` (the turns; ops = blocks kept, rss =
 * RSS with every thread holding its blocks), `cores` (ops = CPUs this process may run on),
 * `arenas` (ops = the arenas malloc_info(3) lists, 0 when it cannot be read), `reserve`
 * (ops = KiB of address space the turns added: the arenas' heaps, the threads' stacks being
 * mapped before), `mallinfo2` (ops = mallinfo2().uordblks, bytes in use as glibc reports them
 * while live_bytes are held), `free` (every thread frees its blocks, 0).
 * Always holds: every block is filled when allocated and checked when freed; the turns run in
 * thread order whatever the load; nothing is held at the end. */
#include "wl_args.h"
#include "wl_block.h"
#include "wl_latency.h"
#include "wl_phase.h"
#include "wl_time.h"

#include <malloc.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define AR_MAX_THREADS 1024

static struct wl_param ar_params[] = {
    WL_INT("threads", "64", "20", 1, AR_MAX_THREADS, "threads alive at once, allocating one after another"),
    WL_INT("kib", "4096", "256", 1, 1 << 20, "KiB each thread allocates in its turn"),
    WL_INT("keep", "16", NULL, 1, 1 << 20, "each thread keeps one block in this many"),
};

static struct wl_prog ar_prog =
    WL_PROG("arenas", "threads allocating in turn: arena count, 64 MiB heaps, mallinfo2, MALLOC_ARENA_MAX", ar_params);

struct ar_thread {
    pthread_t tid;
    int index;
    void **kept;
    size_t *sizes;
    size_t nkept;
    uint64_t live, bad;
};

static pthread_mutex_t ar_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t ar_cond = PTHREAD_COND_INITIALIZER;
static int ar_turn = -1;      /* index of the thread whose turn it is; -1 before the first */
static int ar_release;        /* 1: the threads may free their blocks */
static long long ar_kib, ar_keep;

/* Block size of a thread's i-th block: 64..1024 bytes, the same in every run. */
static size_t ar_size(int thread, size_t i)
{
    return 64 + (size_t)((i * 2654435761u + (size_t)thread * 40503u) % 961u);
}

/* Waits, under ar_lock, until cond() is true. */
static void ar_wait(int (*cond)(int), int arg)
{
    pthread_mutex_lock(&ar_lock);
    while (!cond(arg))
        pthread_cond_wait(&ar_cond, &ar_lock);
    pthread_mutex_unlock(&ar_lock);
}

static int ar_is_turn(int i) { return ar_turn == i; }
static int ar_released(int i) { (void)i; return ar_release; }

/* Sets a shared variable under ar_lock and wakes every waiter. */
static void ar_set(int *var, int value)
{
    pthread_mutex_lock(&ar_lock);
    *var = value;
    pthread_cond_broadcast(&ar_cond);
    pthread_mutex_unlock(&ar_lock);
}

/* One thread's turn: --kib KiB in blocks, all filled and held, then every block but one in --keep
 * checked and freed (the freed ones leave holes between the kept ones, as a program's
 * short-lived objects do between its long-lived ones). */
static void ar_fill(struct ar_thread *t)
{
    size_t budget = (size_t)ar_kib * 1024, used = 0, nall = 0, cap = budget / 64 + 1;
    void **all = malloc(cap * sizeof *all);
    t->kept = malloc((cap / (size_t)ar_keep + 1) * sizeof *t->kept);
    t->sizes = malloc((cap / (size_t)ar_keep + 1) * sizeof *t->sizes);
    if (!all || !t->kept || !t->sizes) {
        t->bad++;
        free(all);
        return;
    }
    for (; used < budget; nall++) {
        size_t n = ar_size(t->index, nall);
        WL_LAT(WL_OP_MALLOC, all[nall] = malloc(n));
        used += n;
        if (all[nall])
            wl_fill(all[nall], n, nall);
        else
            t->bad++;
    }
    for (size_t i = 0; i < nall; i++) {
        size_t n = ar_size(t->index, i);
        if (i % (size_t)ar_keep == 0 && all[i]) {
            t->kept[t->nkept] = all[i];
            t->sizes[t->nkept++] = n;
            t->live += n;
        } else if (all[i]) {
            t->bad += wl_check(all[i], n, i) ? 0 : 1;
            WL_LAT(WL_OP_FREE, free(all[i]));
        }
    }
    free(all);
}

/* Frees a thread's kept blocks (checked) and its two lists. */
static void ar_free(struct ar_thread *t)
{
    for (size_t k = 0; k < t->nkept; k++) {
        t->bad += wl_check(t->kept[k], t->sizes[k], k * (size_t)ar_keep) ? 0 : 1;
        WL_LAT(WL_OP_FREE, free(t->kept[k]));
    }
    t->live = 0;
    free(t->kept);
    free(t->sizes);
}

static void *ar_main(void *arg)
{
    struct ar_thread *t = arg;
    ar_wait(ar_is_turn, t->index);
    ar_fill(t);
    ar_set(&ar_turn, t->index + 1);
    ar_wait(ar_released, 0);
    ar_free(t);
    return NULL;
}

/* KiB of this process's address space (statm's first field). */
static uint64_t ar_vm_kib(void)
{
    unsigned long pages = 0;
    FILE *f = fopen("/proc/self/statm", "r");
    if (f) {
        if (fscanf(f, "%lu", &pages) != 1)
            pages = 0;
        fclose(f);
    }
    return (uint64_t)pages * 4;
}

/* The arenas malloc_info(3) lists (its <heap nr=...> elements); 0 when it gives nothing. */
static uint64_t ar_arenas(void)
{
    char *text = NULL;
    size_t len = 0;
    uint64_t n = 0;
    FILE *f = open_memstream(&text, &len);
    if (!f)
        return 0;
    int rc = malloc_info(0, f);
    fclose(f);
    for (const char *s = text; rc == 0 && s && (s = strstr(s, "<heap nr=")); s++)
        n++;
    free(text);
    return n;
}

/* CPUs this process may run on (what glibc sizes its arena cap by). */
static uint64_t ar_cores(void)
{
    cpu_set_t set;
    return sched_getaffinity(0, sizeof set, &set) == 0 ? (uint64_t)CPU_COUNT(&set) : 0;
}

/* Threads created, turns, the counts read while every block is held, then the frees. */
int main(int argc, char **argv)
{
    wl_args_parse(&ar_prog, argc, argv);
    wl_served_by();
    int n = (int)wl_arg("threads");
    ar_kib = wl_arg("kib");
    ar_keep = wl_arg("keep");
    static struct ar_thread th[AR_MAX_THREADS];
    pthread_attr_t attr;
    pthread_attr_init(&attr);
    pthread_attr_setstacksize(&attr, 256 * 1024);
    int started = 0;
    for (; started < n; started++) {
        th[started].index = started;
        if (pthread_create(&th[started].tid, &attr, ar_main, &th[started]) != 0)
            break;
    }
    pthread_attr_destroy(&attr);
    uint64_t vm0 = ar_vm_kib();
    double t0 = wl_now();
    ar_set(&ar_turn, 0);
    ar_wait(ar_is_turn, started);
    uint64_t vm1 = ar_vm_kib(), live = 0, kept = 0, bad = 0;
    for (int i = 0; i < started; i++) {
        live += th[i].live;
        kept += th[i].nkept;
    }
    t0 = wl_phase("fill", t0, kept, live);
    struct mallinfo2 mi = mallinfo2();
    t0 = wl_phase("cores", t0, ar_cores(), live);
    t0 = wl_phase("arenas", t0, ar_arenas(), live);
    t0 = wl_phase("reserve", t0, vm1 > vm0 ? vm1 - vm0 : 0, live);
    t0 = wl_phase("mallinfo2", t0, (uint64_t)mi.uordblks, live);
    ar_set(&ar_release, 1);
    for (int i = 0; i < started; i++) {
        pthread_join(th[i].tid, NULL);
        bad += th[i].bad;
    }
    wl_phase("free", t0, (uint64_t)started, 0);
    char detail[128];
    snprintf(detail, sizeof detail, "threads=%d of %d bad=%llu", started, n, (unsigned long long)bad);
    return wl_verify(started == n && bad == 0, detail);
}
