/* server.c - a long-running server: cycles of paced load then idle; how much memory comes back, and when.
 *
 * Claim checked: after load drops, allocators give memory back late or never (jemalloc decays
 * dirty pages over dirty_decay_ms = 10 s, mimalloc purges after a delay, tcmalloc releases at a
 * set rate, glibc keeps its peak unless malloc_trim is called), and RSS creeps up cycle after
 * cycle while the live set stays the same. Each request allocates 4..24 request-scoped objects
 * (and, in the mixed profile, sometimes a large buffer) that live until the request completes
 * (--inflight requests are in flight at once), touches a session in an LRU cache (a miss
 * allocates a medium-lived session object and may evict the least recently used one; a hit
 * sometimes replaces it), and 2% of requests add a long-lived object released --keep-cycles
 * later. Phases per cycle N: `cN-load` (end of load, no request in flight), `cN-trim` (with
 * --trim=1: after malloc_trim(0)), `cN-idle-<mark>` at +0.1 s, +1 s, +5 s, +15 s of idle (those
 * inside --idle-ms) and at its end; finally `free-all`. Idle means no allocator call at all,
 * unless --idle-rate serves a trickle of requests (health checks) that lets allocators whose
 * purging is driven by their own calls act. --long is the full form (8 cycles of 10 s load +
 * 15 s idle, ~200 s).
 * Always holds: the allocation sequence depends only on --seed and the parameters, never on
 * timing (pacing only sleeps); live_bytes is the sum of requested sizes held; an idle mark is
 * written no earlier than its offset after the end of the load record, and the durations of a
 * cycle's trim and idle marks add up exactly to the time since then (wl_phase_mark); every block
 * is checked before it is freed. */
#include "wl_args.h"
#include "wl_heap.h"
#include "wl_phase.h"
#include "wl_rng.h"
#include "wl_time.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static struct wl_param sv_params[] = {
    WL_WORD("profile", "web", "web|mixed|shift",
            "sizes: small-object web, mixed with large buffers, shift of the dominant size halfway"),
    WL_INT("cycles", "1", NULL, 1, 100000, "load-then-idle cycles"),
    WL_INT("load-ms", "500", "100", 1, 86400000, "load duration of a cycle in ms (requests paced at --rate)"),
    WL_INT("idle-ms", "2000", "200", 0, 86400000, "idle of a cycle in ms: marks at +0.1/1/5/15 s inside it and at its end"),
    WL_INT("rate", "20000", NULL, 1, 100000000, "requests per second during load"),
    WL_INT("inflight", "64", NULL, 1, 1000000, "requests in flight at once (each holds its objects until it completes)"),
    WL_INT("sessions", "8000", "1000", 1, 10000000, "session cache capacity (LRU eviction)"),
    WL_INT("keep-cycles", "3", NULL, 1, 100000, "cycles a long-lived object lives (those still held go at free-all)"),
    WL_INT("trim", "0", NULL, 0, 1, "1: malloc_trim(0) at the start of every idle (phase cN-trim)"),
    WL_INT("idle-rate", "0", NULL, 0, 100000000, "requests per second during idle (0: none; e.g. 10 health checks)"),
};

static struct wl_prog sv_prog = WL_PROG_LONG("server", "paced load then idle, in cycles: RSS given back after idle, drift over cycles",
                                             sv_params, "--cycles=8 --load-ms=10000 --idle-ms=15000");

/* Log-uniform size range of one kind of object. */
struct sv_range {
    uint32_t min, max;
};

/* The sizes of a profile: request objects, sessions, long-lived objects, buffers (per mille of requests). */
struct sv_sizes {
    struct sv_range req, sess, keep, buf;
    unsigned buf_per_mille;
};

/* A profile: the sizes before and after the halfway request (the same unless it shifts). */
struct sv_profile {
    const char *name;
    struct sv_sizes first, second;
};

#define SV_WEB {{16, 512}, {128, 2048}, {32, 1024}, {0, 0}, 0}
#define SV_MIXED {{16, 512}, {256, 4096}, {64, 4096}, {8192, 1048576}, 100}
static const struct sv_profile sv_profiles[] = {
    {"web", SV_WEB, SV_WEB},
    {"mixed", SV_MIXED, SV_MIXED},
    {"shift", {{16, 128}, {64, 256}, {32, 128}, {0, 0}, 0}, {{1024, 4096}, {1024, 4096}, {512, 2048}, {0, 0}, 0}},
};

#define SV_REQ_MAX 25      /* objects of one request: up to 24 + a buffer */
#define SV_KEEP_PER_MILLE 20
#define SV_PACE_EVERY 16   /* requests between two pacing checks */

struct sv_obj {
    void *p;
    uint32_t n;
    uint64_t tag;
};

struct sv_req {
    struct sv_obj o[SV_REQ_MAX];
    unsigned n;
};

struct sv_sess {
    struct sv_obj o;
    int32_t prev, next;
    uint32_t id;
};

struct sv_state {
    struct wl_heap h;
    struct wl_rng r;
    uint64_t tag, bytes, done, total, hits, misses, evictions;
    const struct sv_profile *prof;
    struct sv_req *req;
    size_t nreq, next_req;
    struct sv_sess *sess;
    int32_t *slot_of; /* session id -> entry, -1 when not cached */
    int32_t head, tail;
    size_t nsess, cap, space;
    struct sv_obj *keep;
    uint32_t *keep_until;
    size_t keep_head, keep_n, keep_cap;
};

/* A log-uniform size in the range. */
static uint32_t sv_size(struct wl_rng *r, struct sv_range g)
{
    double u = (double)(wl_rng_next(r) >> 11) * 0x1.0p-53;
    double lo = log((double)g.min), span = log((double)g.max + 1) - lo;
    uint32_t n = (uint32_t)exp(lo + u * span);
    return n < g.min ? g.min : n > g.max ? g.max : n;
}

/* Allocates o with a size from g (tag = the allocation's number, for the pattern check). */
static void sv_new(struct sv_state *st, struct sv_obj *o, struct sv_range g)
{
    o->n = sv_size(&st->r, g);
    o->tag = st->tag++;
    o->p = wl_heap_alloc(&st->h, o->n, o->tag);
    st->bytes += o->n;
}

/* Checks and frees o (nothing if it holds no block). */
static void sv_drop(struct sv_state *st, struct sv_obj *o)
{
    wl_heap_free(&st->h, o->p, o->n, o->tag);
    o->p = NULL;
}

/* The sizes in force: the profile's second set from the halfway request of the run on. */
static const struct sv_sizes *sv_sizes_now(const struct sv_state *st)
{
    return st->done < st->total / 2 ? &st->prof->first : &st->prof->second;
}

/* Completes a request: frees its objects. */
static void sv_complete(struct sv_state *st, struct sv_req *q)
{
    for (unsigned i = 0; i < q->n; i++)
        sv_drop(st, &q->o[i]);
    q->n = 0;
}

/* Unlinks entry e from the LRU list. */
static void sv_unlink(struct sv_state *st, int32_t e)
{
    struct sv_sess *s = &st->sess[e];
    if (s->prev >= 0)
        st->sess[s->prev].next = s->next;
    else
        st->head = s->next;
    if (s->next >= 0)
        st->sess[s->next].prev = s->prev;
    else
        st->tail = s->prev;
}

/* Puts entry e at the front (most recently used). */
static void sv_push_front(struct sv_state *st, int32_t e)
{
    st->sess[e].prev = -1;
    st->sess[e].next = st->head;
    if (st->head >= 0)
        st->sess[st->head].prev = e;
    st->head = e;
    if (st->tail < 0)
        st->tail = e;
}

/* An entry for a new session: a fresh one while the cache is not full, else the evicted LRU tail. */
static int32_t sv_entry(struct sv_state *st)
{
    if (st->nsess < st->cap)
        return (int32_t)st->nsess++;
    int32_t e = st->tail;
    sv_unlink(st, e);
    sv_drop(st, &st->sess[e].o);
    st->slot_of[st->sess[e].id] = -1;
    st->evictions++;
    return e;
}

/* Touches one session (popular ids more often): a hit moves it to the front and one hit in 8
 * replaces its object (an update); a miss allocates a new session object. */
static void sv_session(struct sv_state *st, const struct sv_sizes *z)
{
    double u = (double)(wl_rng_next(&st->r) >> 11) * 0x1.0p-53;
    uint32_t id = (uint32_t)(u * u * (double)st->space);
    int32_t e = st->slot_of[id];
    if (e >= 0) {
        st->hits++;
        sv_unlink(st, e);
        if (wl_rng_range(&st->r, 0, 7) == 0) {
            sv_drop(st, &st->sess[e].o);
            sv_new(st, &st->sess[e].o, z->sess);
        }
    } else {
        st->misses++;
        e = sv_entry(st);
        st->sess[e].id = id;
        st->slot_of[id] = e;
        sv_new(st, &st->sess[e].o, z->sess);
    }
    sv_push_front(st, e);
}

/* One request in cycle c: completes the oldest request in flight, then allocates this one's
 * objects (and maybe a buffer), touches a session, and maybe adds a long-lived object. */
static void sv_request(struct sv_state *st, uint32_t c)
{
    const struct sv_sizes *z = sv_sizes_now(st);
    struct sv_req *q = &st->req[st->next_req];
    st->next_req = (st->next_req + 1) % st->nreq;
    sv_complete(st, q);
    unsigned k = (unsigned)wl_rng_range(&st->r, 4, SV_REQ_MAX - 1);
    for (unsigned i = 0; i < k; i++)
        sv_new(st, &q->o[q->n++], z->req);
    if (z->buf_per_mille && wl_rng_range(&st->r, 0, 999) < z->buf_per_mille)
        sv_new(st, &q->o[q->n++], z->buf);
    sv_session(st, z);
    if (wl_rng_range(&st->r, 0, 999) < SV_KEEP_PER_MILLE && st->keep_n < st->keep_cap) {
        st->keep_until[st->keep_n] = c + (uint32_t)wl_arg("keep-cycles");
        sv_new(st, &st->keep[st->keep_n++], z->keep);
    }
    st->done++;
}

/* Releases the long-lived objects whose time is up at the end of cycle c (they expire in order). */
static void sv_release_kept(struct sv_state *st, uint32_t c)
{
    while (st->keep_head < st->keep_n && st->keep_until[st->keep_head] <= c)
        sv_drop(st, &st->keep[st->keep_head++]);
}

/* Sleeps until the monotonic time t (seconds), through interruptions. */
static void sv_sleep_until(double t)
{
    struct timespec ts = {(time_t)t, (long)((t - floor(t)) * 1e9)};
    while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR)
        ;
}

/* The load of cycle c: n requests paced at rate from start, then every request in flight completed. */
static void sv_load(struct sv_state *st, uint32_t c, uint64_t n, double rate, double start)
{
    for (uint64_t i = 0; i < n; i++) {
        if (i % SV_PACE_EVERY == 0 && wl_now() < start + (double)i / rate)
            sv_sleep_until(start + (double)i / rate);
        sv_request(st, c);
    }
    for (size_t i = 0; i < st->nreq; i++)
        sv_complete(st, &st->req[i]);
    sv_release_kept(st, c);
}

/* Waits until the mark at idle_start + mark_s, serving the idle requests scheduled before it
 * (request k at idle_start + k / rate; *k counts them over the idle); returns how many it served. */
static uint64_t sv_trickle(struct sv_state *st, uint32_t c, double idle_start, double mark_s, uint64_t *k)
{
    double rate = (double)wl_arg("idle-rate");
    uint64_t served = 0;
    for (; rate > 0 && (double)*k / rate < mark_s; (*k)++, served++) {
        sv_sleep_until(idle_start + (double)*k / rate);
        sv_request(st, c);
    }
    sv_sleep_until(idle_start + mark_s);
    return served;
}

/* The idle of cycle c from idle_start: optional malloc_trim, then a record at each mark (ops: the
 * idle requests served since the previous record), each mark's duration chained on the previous one's end. */
static void sv_idle(struct sv_state *st, uint32_t c, double idle_start)
{
    double t0 = idle_start;
    uint64_t k = 0;
    static const long marks_ms[] = {100, 1000, 5000, 15000};
    long idle_ms = (long)wl_arg("idle-ms");
    char name[64];
    if (wl_arg("trim")) {
        int ok = wl_trim(0) >= 0;
        snprintf(name, sizeof name, "c%u-trim", c);
        t0 = wl_phase_mark(name, t0, (uint64_t)ok, st->h.live);
    }
    for (size_t i = 0; i <= sizeof marks_ms / sizeof marks_ms[0]; i++) {
        int last = i == sizeof marks_ms / sizeof marks_ms[0] || marks_ms[i] >= idle_ms;
        long m = last ? idle_ms : marks_ms[i];
        if (m <= 0)
            break;
        uint64_t served = sv_trickle(st, c, idle_start, (double)m / 1000, &k);
        if (m % 1000)
            snprintf(name, sizeof name, "c%u-idle-%.1fs", c, (double)m / 1000);
        else
            snprintf(name, sizeof name, "c%u-idle-%lds", c, m / 1000);
        t0 = wl_phase_mark(name, t0, served, st->h.live);
        if (last)
            break;
    }
}

/* Allocates the bookkeeping (not counted as live: it is the server's own structure). */
static int sv_setup(struct sv_state *st, uint64_t per_cycle, uint64_t cycles)
{
    memset(st, 0, sizeof *st);
    wl_rng_init(&st->r, wl_seed, 0);
    for (size_t i = 0; i < sizeof sv_profiles / sizeof sv_profiles[0]; i++)
        if (strcmp(sv_profiles[i].name, wl_word("profile")) == 0)
            st->prof = &sv_profiles[i];
    st->total = per_cycle * cycles;
    st->nreq = (size_t)wl_arg("inflight");
    st->cap = (size_t)wl_arg("sessions");
    st->space = st->cap * 4;
    st->keep_cap = (size_t)(st->total * SV_KEEP_PER_MILLE * 2 / 1000) + 64;
    st->head = st->tail = -1;
    st->req = calloc(st->nreq, sizeof *st->req);
    st->sess = calloc(st->cap, sizeof *st->sess);
    st->slot_of = malloc(st->space * sizeof *st->slot_of);
    st->keep = calloc(st->keep_cap, sizeof *st->keep);
    st->keep_until = calloc(st->keep_cap, sizeof *st->keep_until);
    if (!st->req || !st->sess || !st->slot_of || !st->keep || !st->keep_until)
        return 0;
    memset(st->slot_of, 0xff, st->space * sizeof *st->slot_of);
    return 1;
}

/* Frees every request in flight (idle requests), session and long-lived object still held. */
static void sv_free_all(struct sv_state *st)
{
    for (size_t i = 0; i < st->nreq; i++)
        sv_complete(st, &st->req[i]);
    for (size_t i = 0; i < st->nsess; i++)
        sv_drop(st, &st->sess[i].o);
    sv_release_kept(st, UINT32_MAX);
}

/* The cycles, free-all, then verify (live back to 0, no damaged block). */
int main(int argc, char **argv)
{
    wl_args_parse(&sv_prog, argc, argv);
    wl_served_by();
    double rate = (double)wl_arg("rate");
    uint64_t cycles = (uint64_t)wl_arg("cycles");
    uint64_t per_cycle = (uint64_t)ceil(rate * (double)wl_arg("load-ms") / 1000);
    struct sv_state st;
    if (!sv_setup(&st, per_cycle, cycles))
        return wl_verify(0, "out of memory for the server's bookkeeping");
    char name[64];
    double t0 = wl_now();
    for (uint32_t c = 1; c <= cycles; c++) {
        sv_load(&st, c, per_cycle, rate, t0);
        snprintf(name, sizeof name, "c%u-load", c);
        t0 = wl_phase(name, t0, per_cycle, st.h.live);
        sv_idle(&st, c, t0);
        t0 = wl_now();
    }
    sv_free_all(&st);
    wl_phase("free-all", t0, 0, st.h.live);
    char detail[200];
    snprintf(detail, sizeof detail, "requests=%llu bytes=%llu hits=%llu misses=%llu evictions=%llu live_after=%llu bad=%llu",
             (unsigned long long)st.done, (unsigned long long)st.bytes, (unsigned long long)st.hits,
             (unsigned long long)st.misses, (unsigned long long)st.evictions, (unsigned long long)st.h.live,
             (unsigned long long)st.h.bad);
    int ok = st.h.bad == 0 && st.h.live == 0;
    free(st.req);
    free(st.sess);
    free(st.slot_of);
    free(st.keep);
    free(st.keep_until);
    return wl_verify(ok, detail);
}
