/* record.c - the recorder, build/lib/libhbrecord.so: preloaded, it logs every malloc-API call
 * (malloc, calloc, realloc, free, posix_memalign, aligned_alloc, memalign, valloc, pvalloc,
 * reallocarray) of a process into HEAPBENCH_RECORD_DIR/<pid>.hbt (format: trace.h, docs/DATA.md);
 * the program's own mappings are recorded by record_map.c through record.h. In raw mode
 * (HEAPBENCH_RECORD_RAW=1, what heapbench record uses) it writes HEAPBENCH_RECORD_DIR/<pid>.hbr
 * instead (rawtrace.h): raw events, no address map, no varint coding; the post-pass hbconvert.c
 * names the objects and writes the same trace after the program exits.
 *
 * Raw mode also holds: its hot path (raw_event) takes no state or busy word and no atomic
 * read-modify-write while one thread owns the order (order_take_over); an event that ends an
 * object (free, a realloc's RAW_X_TAKE, munmap) is recorded before the call that frees its place
 * and one that makes an object after the call that made it, so that the post-pass, naming by
 * address in the global order, never gives a reused place the wrong object; a large block's touch
 * measure (record_touch.c) is recorded before the event that ends it, and costs a small block's
 * malloc nothing (malloc_large) and its free one filter byte; exit writes the other threads'
 * blocks up to their last whole event without waiting for them.
 *
 * Always holds:
 *   - no lock on the hot path: each thread appends to its own chunk buffer and writes it itself
 *     (one O_APPEND write(2) per chunk); the only shared writes are the address map's CAS, the
 *     global order's counter (a plain load and store while the process has had one thread, a
 *     fetch-add from a second thread's start on: take_order; in raw mode none once threads run at
 *     once: take_stamp) and a plain store to the thread's
 *     own busy word, which exit and a second thread's start read after a membarrier(2) (without
 *     membarrier, one xchg on the thread's state word per event, as before: see enter());
 *   - every event of a process takes one number of its global order, none twice (raw mode with
 *     threads at once: a TSC stamp, unique by the thread's index in its low bits, take_stamp);
 *   - nothing here allocates through malloc: buffers and the address map come from mmap, the
 *     real functions from dlsym(RTLD_NEXT), and dlsym's own calloc is served from a static
 *     bootstrap arena; calls made while the recorder runs its own code pass straight through;
 *   - objects are named (thread, seq) at record time through the address map (obj_map.c), so a
 *     reused address never names two objects; realloc ends one object and makes another;
 *   - a fork child starts its own trace (named by its pid, opened at its first flush) whose
 *     first events re-create the heap it inherited; exec starts afresh from the environment;
 *   - a trace is readable up to its last written chunk whatever happens to the process; the
 *     header's totals (complete = 1) are written only by a normal exit that wrote every thread's
 *     buffer (one whose owner held it for CLOSE_WAIT_NS leaves the trace incomplete, with a line).
 */
#include "obj_map.h"
#include "common/rawtrace.h"
#include "record.h"
#include "spin.h"
#include "trace.h"
#include "wl_readfile.h"

#include <cpuid.h>
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/membarrier.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>
#include <x86intrin.h>

#define EXPORT __attribute__((visibility("default")))
#define IE __attribute__((tls_model("initial-exec")))
/* The hot path (every event) is inlined into each malloc-API wrapper; what runs once per chunk,
 * thread or process stays out of line. */
#define HOT static inline __attribute__((always_inline))
#define COLD __attribute__((noinline, cold))
#define CHUNK_BYTES (64u << 10)
#define RAW_BYTES (256u << 10) /* a raw block: ~30,000 malloc/free events of the most malloc-heavy workload */

enum { ST_UNUSED, ST_IDLE, ST_BUSY, ST_CLOSED };
enum { FILE_CLOSED, FILE_OPENING, FILE_OPEN, FILE_FAILED };

/* A thread reads the clock at every TIME_EVERY-th of its events and its thread start and exit; the
 * events between carry its last reading (at most TIME_EVERY - 1 events old). A TSC read costs ~13
 * ns of CPU on this project's VM, as much as a whole malloc/free of the most malloc-heavy workload;
 * at every 16th event it costs ~0.8 ns per event (docs/measurements/recorder.md). */
#define TIME_EVERY 16
/* Raw mode reads it at every 64th (~0.2 ns per event): its events cost ~5 ns each in all, and the
 * 1.5x target on the most malloc-heavy workload leaves ~7 (docs/measurements/recorder.md). */
#define RAW_TIME_EVERY 64

/* Each on cache lines of its own (_Alignas(64)): a thread's event writes its counters at the head and
 * its raw block's fill pointer at the tail, which without it shared a line with the next thread's
 * head (thread-churn --threads=2 under raw mode: 0.32 s of user time against 0.24 s aligned). */
struct rec_thread {
    _Alignas(64) _Atomic int state; /* ST_*: the owner holds BUSY while it appends or flushes (the slow path) */
    _Atomic int busy;        /* 1 while the owner records an event on the fast path (written by the owner only) */
    uint32_t untimed;        /* events left before the next clock reading (0: read at the next one) */
    uint64_t last_ns;        /* the last reading */
    uint64_t written_ops;    /* events of this thread already in the file */
    _Atomic uint64_t order_local; /* raw mode: the next order while it owns the order (read by a take-over) */
    uint64_t stamp_last;     /* raw mode, stamped order: the thread's last stamp (take_stamp) */
    struct hbt_chunk c;      /* format 3 (R.raw = 0) */
    struct raw_block rb;     /* raw mode (R.raw = 1) */
};

_Static_assert(sizeof(struct rec_thread) % 64 == 0, "a thread's recorder shares no cache line with another's");

static struct {
    void *(*malloc)(size_t);
    void *(*calloc)(size_t, size_t);
    void *(*realloc)(void *, size_t);
    void (*free)(void *);
    int (*posix_memalign)(void **, size_t, size_t);
    void *(*aligned_alloc)(size_t, size_t);
    void *(*memalign)(size_t, size_t);
    void *(*valloc)(size_t);
    void *(*pvalloc)(size_t);
    void *(*reallocarray)(void *, size_t, size_t);
    size_t (*usable_size)(void *);
} real;

static struct {
    int enabled, use_tsc, fd, hdr_fd;
    int raw;                         /* raw mode (HEAPBENCH_RECORD_RAW=1): raw events, named and encoded after exit by hbconvert */
    int sites;                       /* raw mode: REC_SITES_* (record_site.c) */
    uint64_t hdr_off;                /* where the header lies in the file: 0, or after a raw file's prefix */
    struct raw_prefix pre;           /* raw mode: a fork child's parent and order at the fork */
    char name[64];                   /* the file's name in dir */
    _Atomic int file;                /* FILE_*: fd and hdr_fd are valid once it is FILE_OPEN */
    char dir[PATH_MAX - 64];
    uint64_t tsc0, mono0, mult;     /* ns = (tsc - tsc0) * mult >> 32 (or CLOCK_MONOTONIC - mono0) */
    _Atomic uint32_t nthreads;
    _Atomic uint64_t unknown_refs, lost_threads;
    pthread_key_t key;
    struct hbt_header h;
} R = {.fd = -1, .hdr_fd = -1};

/* The process's global order of events (hbt_event.order), on a line of its own so that it never
 * shares a cache line with what every event reads. While the process has had one thread, an event
 * on the fast path takes its number with a plain load and store (a lock'd fetch-add costs ~7 ns
 * here, half of what a malloc/free pair costs plain); from a second thread's start on, every
 * event takes it with a fetch-add (order_share). */
static _Alignas(64) _Atomic uint64_t order_next;
static _Alignas(64) _Atomic int order_shared; /* 1 once a second thread registered: fetch-add only (raw mode: 1 while
                                               * the second thread sets order_next, 2 from then on) */
/* Raw mode's order: the thread that owns it numbers its events with its own plain counter (order_local);
 * another thread takes it over (order_take_over) by a membarrier, and after ORDER_REVOKES take-overs
 * (threads that run at once) every event takes its number with a fetch-add on order_next (ORDER_SHARED). */
#define ORDER_SHARED ((struct rec_thread *)1)
#define ORDER_TRANSIT ((struct rec_thread *)2)
#define ORDER_REVOKES 64
static _Alignas(64) _Atomic(struct rec_thread *) order_owner;
/* Raw mode's stamped order: once the order is shared (ORDER_SHARED) on a CPU whose TSC is invariant,
 * an event's number is a stamp of the TSC read after every load before it (lfence; rdtsc), with the
 * thread's index in its low STAMP_BITS bits, from base on: no shared write per event (a fetch-add
 * whose line moves between the CPUs cost thread-churn with 4 threads 2.25x CPU recorded). A number
 * is unique (the index) and above the thread's previous one (take_stamp); the post-pass merges the
 * threads' streams by it and renumbers them 0, 1, ... (hbconvert.c). It keeps the order the replay
 * needs: the event that makes an object is stamped after the call that made it and before the
 * program can pass the object on, and the thread that uses it stamps its event after it loaded the
 * object's address; an event that ends an object is stamped before the call that gives its place
 * back, and the malloc that gets the place again stamps after that call returned. Written under
 * order_lock before order_owner's release store of ORDER_SHARED; read after it. 2^(64 - 12) ticks
 * after the switch (17 days at 3 GHz) the numbers would wrap. */
#define STAMP_BITS 12
_Static_assert(HBT_MAX_THREADS <= 1u << STAMP_BITS, "a stamp's low bits hold every thread's index");
static _Alignas(64) struct {
    uint64_t base, tsc0; /* the first number a stamp may take; the TSC at the switch */
    int on;              /* the shared order is stamped (else a fetch-add on order_next) */
} stamp;
static _Alignas(64) atomic_flag order_lock = ATOMIC_FLAG_INIT;
static unsigned order_revokes;
static _Alignas(64) _Atomic int fast_open; /* enter()'s fast path is open: recording on, membarrier registered, nothing closing */
static int fast_ok;            /* membarrier's private expedited command is registered */
/* The threads' recorders, mapped by rec_init when recording is on: like the recorder's other
 * mappings a multiple of 64 KiB and not of 2 MiB (record_touch.c), so that neither its size nor
 * its alignment moves the program's own mappings (the replay test "mappings: ... offsets modulo
 * 64 KiB"); in the library's bss, a size of 64-byte multiples did. */
#define THREADS_ROUND ((HBT_MAX_THREADS * sizeof(struct rec_thread) + 0xffffu) & ~(size_t)0xffffu)
#define THREADS_BYTES (THREADS_ROUND % (2u << 20) ? THREADS_ROUND : THREADS_ROUND + (64u << 10))
static struct rec_thread *threads;
static struct rec_thread lost_thread = {.state = ST_CLOSED};  /* every thread past HBT_MAX_THREADS */
/* The calling thread's recorder and its "inside the recorder" flag, in one thread-local block (one
 * address computation per event in a shared library, not two). */
static __thread struct {
    struct rec_thread *me;
    int busy;
    int dead;                /* raw mode: this thread records no more (it ended, or exit closed its recorder) */
    uint32_t site_left;      /* raw mode: allocations before the next whole stack (record_site.c; 0: at the next) */
    uintptr_t last_site;     /* raw mode: the call site of the thread's previous allocation */
} tls IE;

/* ---- bootstrap: dlsym may call calloc before the real one is known ---- */

static _Alignas(16) char boot[1 << 16];
static _Atomic size_t boot_used;
static _Atomic int resolving;

static void *boot_alloc(size_t n)
{
    size_t need = (n + 15) & ~(size_t)15, off = atomic_fetch_add(&boot_used, need);
    return off + need <= sizeof boot ? boot + off : NULL;
}

static int is_boot(const void *p) { return (const char *)p >= boot && (const char *)p < boot + sizeof boot; }

static void resolve(void)
{
    if (real.free || atomic_exchange(&resolving, 1))
        return;
    real.malloc = dlsym(RTLD_NEXT, "malloc");
    real.calloc = dlsym(RTLD_NEXT, "calloc");
    real.realloc = dlsym(RTLD_NEXT, "realloc");
    real.posix_memalign = dlsym(RTLD_NEXT, "posix_memalign");
    real.aligned_alloc = dlsym(RTLD_NEXT, "aligned_alloc");
    real.memalign = dlsym(RTLD_NEXT, "memalign");
    real.valloc = dlsym(RTLD_NEXT, "valloc");
    real.pvalloc = dlsym(RTLD_NEXT, "pvalloc");
    real.reallocarray = dlsym(RTLD_NEXT, "reallocarray");
    real.usable_size = dlsym(RTLD_NEXT, "malloc_usable_size");
    real.free = dlsym(RTLD_NEXT, "free");
}

/* ---- time ---- */

static uint64_t mono_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* The TSC (when the CPU says it is invariant) costs a fraction of clock_gettime; its rate is
 * measured against CLOCK_MONOTONIC over 200 us at start. */
static void clock_init(void)
{
    unsigned a, b, c, d;
    R.use_tsc = __get_cpuid(0x80000007, &a, &b, &c, &d) && (d & (1u << 8));
    R.mono0 = mono_ns();
    R.tsc0 = __rdtsc();
    if (!R.use_tsc)
        return;
    uint64_t n1, t1;
    do {
        n1 = mono_ns();
        t1 = __rdtsc();
    } while (n1 - R.mono0 < 200000);
    R.mult = t1 > R.tsc0 ? ((n1 - R.mono0) << 32) / (t1 - R.tsc0) : 0;
    R.use_tsc = R.mult != 0;
}

static uint64_t now_ns(void)
{
    if (R.use_tsc)
        return (uint64_t)(((unsigned __int128)(__rdtsc() - R.tsc0) * R.mult) >> 32);
    return mono_ns() - R.mono0;
}

/* ---- the trace file ---- */

/* A write of the trace failed (a full disk): says so once, and nothing more is written; the trace
 * never claims to be complete. */
static void write_failed(int err)
{
    int open = FILE_OPEN;
    if (atomic_compare_exchange_strong(&R.file, &open, FILE_FAILED))
        dprintf(2, "hbrecord: cannot write the trace of pid %llu in %s: %s; the trace is cut here, nothing more is "
                   "recorded\n", (unsigned long long)R.h.pid, R.dir, strerror(err ? err : ENOSPC));
}

/* 0 when the header was written, else -1 (and, once the file is open, write_failed). */
static int write_header(void)
{
    static uint8_t buf[HBT_HEADER_SIZE];
    hbt_header_encode(&R.h, buf);
    if (R.hdr_fd >= 0 && pwrite(R.hdr_fd, buf, sizeof buf, (off_t)R.hdr_off) == (ssize_t)sizeof buf)
        return 0;
    write_failed(errno);
    return -1;
}

/* A raw file's prefix (a fork child's parent and order at the fork), before its header. */
static int write_prefix(void)
{
    static uint8_t buf[RAW_PREFIX];
    raw_prefix_encode(&R.pre, buf);
    if (pwrite(R.hdr_fd, buf, sizeof buf, 0) == (ssize_t)sizeof buf)
        return 0;
    errno = errno ? errno : ENOSPC;
    return -1;
}

/* Creates DIR/<pid>.hbt (DIR/<pid>.<n>.hbt when an earlier image of this pid left one: exec; .hbr
 * in raw mode) and writes its header; the chunk fd appends, the header fd rewrites the header at exit. */
static void create_trace(void)
{
    char path[PATH_MAX];
    const char *ext = R.raw ? "hbr" : "hbt";
    int fd = -1;
    for (int n = 1; n < 100 && fd < 0; n++) {
        if (n == 1)
            snprintf(R.name, sizeof R.name, "%llu.%s", (unsigned long long)R.h.pid, ext);
        else
            snprintf(R.name, sizeof R.name, "%llu.%d.%s", (unsigned long long)R.h.pid, n, ext);
        snprintf(path, sizeof path, "%s/%s", R.dir, R.name);
        fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_APPEND | O_CLOEXEC, 0644);
        if (fd < 0 && errno != EEXIST)
            break;
    }
    if (fd >= 0) {
        R.hdr_fd = open(path, O_WRONLY | O_CLOEXEC);
        R.hdr_off = R.raw ? RAW_PREFIX : 0;
        if ((!R.raw || write_prefix() == 0) && write_header() == 0) {
            R.fd = fd;
            return;
        }
        int err = errno;
        close(fd), close(R.hdr_fd);
        R.hdr_fd = -1;
        errno = err ? err : ENOSPC;
    }
    int err = errno;
    R.enabled = 0;
    atomic_store(&fast_open, 0);
    if (err == ENOENT)
        dprintf(2, "hbrecord: HEAPBENCH_RECORD_DIR %s does not exist; create it before the recorded program "
                   "starts (heapbench record does); nothing is recorded\n", R.dir);
    else
        dprintf(2, "hbrecord: cannot create a trace in %s: %s; nothing more is recorded\n", R.dir, strerror(err));
}

/* The first thread to write a chunk creates the file and its header; the others wait for that,
 * so no chunk can land before the header (the only wait in the recorder: once per process). */
static void open_trace(void)
{
    int err = errno, closed = FILE_CLOSED;
    if (atomic_compare_exchange_strong(&R.file, &closed, FILE_OPENING)) {
        create_trace();
        atomic_store(&R.file, R.fd >= 0 ? FILE_OPEN : FILE_FAILED);
    }
    while (atomic_load(&R.file) == FILE_OPENING)
        sched_yield();
    errno = err;
}

/* Appends len bytes of buf (a sealed chunk or block) to the file, opening it first; 1 when written. */
static int write_sealed(const uint8_t *buf, size_t len)
{
    if (atomic_load_explicit(&R.file, memory_order_acquire) != FILE_OPEN)
        open_trace();
    if (atomic_load_explicit(&R.file, memory_order_acquire) != FILE_OPEN)
        return 0;
    int err = errno, ok = hbt_write_all(R.fd, buf, len) == 0;
    if (!ok)
        write_failed(errno);
    errno = err;
    return ok;
}

int rec_write(const uint8_t *buf, size_t len) { return write_sealed(buf, len) ? 0 : -1; }

/* Writes the thread's raw block (raw mode). */
static COLD void flush_raw(struct rec_thread *t)
{
    size_t len = raw_block_seal(&t->rb);
    if (len > 0)
        write_sealed(t->rb.buf, len);
    raw_block_reset(&t->rb);
}

/* Writes the thread's chunk (the caller holds the thread BUSY or is its only user). */
static COLD void flush(struct rec_thread *t)
{
    if (R.raw) {
        flush_raw(t);
        return;
    }
    size_t len = hbt_chunk_seal(&t->c);
    if (len == 0)
        return;
    if (write_sealed(t->c.buf, len))
        t->written_ops = t->c.op;
    hbt_chunk_reset(&t->c);
}

/* ---- threads ---- */

static inline void put(struct rec_thread *t, struct hbt_event *e, uint64_t *seq);
static inline void put_raw(struct rec_thread *t, unsigned kind, uintptr_t addr, uint64_t size, int extra, uint64_t xword);

/* A thread's start or exit event (the caller holds the thread). */
static void put_mark(struct rec_thread *t, unsigned kind)
{
    struct hbt_event e = {.kind = (uint8_t)kind};
    uint64_t seq;
    t->untimed = 0; /* a thread's start and exit are timed */
    if (R.raw)
        put_raw(t, kind, 0, 0, 0, 0);
    else
        put(t, &e, &seq);
}

/* A second thread starts (its index idx > 0): from now on every thread numbers its events with a
 * fetch-add. Waits for any thread that may be numbering an event the plain way to finish it. */
static COLD void order_share(uint32_t idx)
{
    if (R.raw)
        return; /* raw mode: the new thread takes the order over at its first event (order_take_over) */
    atomic_store(&order_shared, 1);
    if (fast_ok)
        syscall(SYS_membarrier, MEMBARRIER_CMD_PRIVATE_EXPEDITED, 0, 0);
    for (uint32_t j = 0; j < idx && j < HBT_MAX_THREADS; j++)
        while (atomic_load(&threads[j].busy))
            sched_yield();
}

static COLD struct rec_thread *register_thread(void)
{
    uint32_t idx = atomic_fetch_add(&R.nthreads, 1);
    if (idx > 0 && !atomic_load(&order_shared))
        order_share(idx);
    size_t bytes = R.raw ? RAW_BYTES : CHUNK_BYTES;
    void *buf = idx < HBT_MAX_THREADS ? mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0) : MAP_FAILED;
    if (buf == MAP_FAILED) {
        atomic_fetch_add(&R.lost_threads, 1);
        tls.dead = R.raw; /* raw mode's hot path takes no state: the thread stays unrecorded */
        return tls.me = R.raw ? NULL : &lost_thread;
    }
    struct rec_thread *t = &threads[idx];
    t->written_ops = 0;
    if (R.raw)
        raw_block_init(&t->rb, buf, RAW_BYTES, (uint16_t)idx);
    else
        hbt_chunk_init(&t->c, buf, CHUNK_BYTES, (uint16_t)idx);
    put_mark(t, HBT_THREAD_START);
    atomic_store(&t->state, ST_IDLE);
    pthread_setspecific(R.key, t);
    return tls.me = t;
}

/* The fast path of enter() (no atomic read-modify-write per event): open (fast_open) while
 * recording is on, nothing is closing other threads' buffers and membarrier(2) can order the
 * owner's plain stores against a closer. A closer (exit) closes it, then membarrier makes every
 * running thread pass a full barrier: an owner that stored busy = 1 before it is seen busy (the
 * closer waits), and one that reads fast_open after it sees 0 and takes the slow path (the xchg
 * on its state word, which the closer's CAS excludes). One word read per event, not three. */

static void fast_init(void)
{
    fast_ok = syscall(SYS_membarrier, MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED, 0, 0) == 0;
}

/* Raw mode without membarrier: an owner's plain order cannot be taken over safely, every event fetch-adds. */
static void raw_order_init(void)
{
    if (R.raw && !fast_ok)
        atomic_store(&order_owner, ORDER_SHARED);
}

/* From now on every thread takes the slow path, and any thread on the fast path shows busy. */
static void begin_closing(void)
{
    atomic_store(&fast_open, 0);
    if (fast_ok && syscall(SYS_membarrier, MEMBARRIER_CMD_PRIVATE_EXPEDITED, 0, 0) != 0)
        fast_ok = 0; /* cannot happen once registered; then wait for busy words as if it had run */
}

/* Takes the calling thread's recorder for one event; NULL means "pass through unrecorded". */
static struct rec_thread *enter_slow(struct rec_thread *t);

HOT struct rec_thread *enter(void)
{
    if (tls.busy)
        return NULL;
    struct rec_thread *t = tls.me;
    if (__builtin_expect(t && atomic_load_explicit(&fast_open, memory_order_relaxed), 1) &&
        atomic_load_explicit(&t->state, memory_order_relaxed) == ST_IDLE) {
        tls.busy = 1;
        atomic_store_explicit(&t->busy, 1, memory_order_relaxed);
        atomic_signal_fence(memory_order_seq_cst); /* the store before the load, for the compiler; membarrier does the rest */
        if (__builtin_expect(atomic_load_explicit(&fast_open, memory_order_relaxed), 1))
            return t;
        atomic_store_explicit(&t->busy, 0, memory_order_release);
        tls.busy = 0;
    }
    return enter_slow(t);
}

/* enter() without the fast path: the thread's first event, no membarrier, or exit closing. */
static __attribute__((noinline)) struct rec_thread *enter_slow(struct rec_thread *t)
{
    if (!R.enabled)
        return NULL;
    tls.busy = 1;
    t = t ? t : register_thread();
    int old = atomic_exchange(&t->state, ST_BUSY);
    if (old != ST_IDLE) {
        atomic_store(&t->state, old);
        tls.busy = 0;
        return NULL;
    }
    return t;
}

HOT void leave(struct rec_thread *t)
{
    if (atomic_load_explicit(&t->busy, memory_order_relaxed))
        atomic_store_explicit(&t->busy, 0, memory_order_release);
    else
        atomic_store_explicit(&t->state, ST_IDLE, memory_order_release);
    tls.busy = 0;
}

struct rec_thread *rec_enter(void) { return enter(); }
void rec_leave(struct rec_thread *t) { leave(t); }
uint16_t rec_thread_no(const struct rec_thread *t) { return t->c.thread; }
uint64_t rec_page_size(void) { return R.h.page_size; }
int rec_raw(void) { return R.raw; }

/* How long exit waits for a thread's owner to finish its event (a call inside the allocator, or a raw
 * block's write) before it gives up on that thread: a loaded machine can deschedule a thread for
 * seconds. */
#define CLOSE_WAIT_NS 10000000000ull

/* Takes t for good (waiting up to CLOSE_WAIT_NS of CLOCK_MONOTONIC for its owner to finish an event),
 * writes what it holds (after its exit event when the thread itself is ending) and closes it. 1 when t
 * is closed (or was never used), 0 when its owner held it all that time (what it holds is not written). */
static int close_thread(struct rec_thread *t, int exiting)
{
    uint64_t t0 = mono_ns();
    for (int spins = 0;; spins++) {
        int idle = ST_IDLE;
        if (!atomic_load(&t->busy) && atomic_compare_exchange_strong(&t->state, &idle, ST_BUSY)) {
            if (exiting)
                put_mark(t, HBT_THREAD_EXIT);
            flush(t);
            if (!R.raw) {
                rec_touch_close(t->c.thread);
                munmap(t->c.buf, CHUNK_BYTES);
            } else if (exiting) { /* the owner itself, which records nothing more */
                munmap(t->rb.buf, RAW_BYTES);
            }
            atomic_store(&t->state, ST_CLOSED);
            return 1;
        }
        if (!atomic_load(&t->busy) && (idle == ST_CLOSED || idle == ST_UNUSED))
            return 1;
        if (spins > 100) {
            if (mono_ns() - t0 > CLOSE_WAIT_NS)
                return 0;
            struct timespec ts = {0, 10000};
            nanosleep(&ts, NULL);
        }
    }
}

/* pthread key destructor: a thread that ends writes its last chunk. */
static void thread_gone(void *arg)
{
    int busy = tls.busy;
    tls.busy = 1;
    close_thread(arg, 1);
    if (R.raw)
        tls.me = NULL, tls.dead = 1; /* its later frees (thread teardown) pass through: its block is gone */
    tls.busy = busy;
}

/* ---- events ---- */

/* The next number of the global order. The plain path runs only on the fast path (t->busy, stored
 * before this load): order_share's membarrier then guarantees that either this thread reads
 * order_shared = 1 or the sharer sees it busy and waits for its event to end. */
HOT uint64_t take_order(struct rec_thread *t)
{
    if (__builtin_expect(!atomic_load_explicit(&order_shared, memory_order_relaxed), 1) &&
        atomic_load_explicit(&t->busy, memory_order_relaxed)) {
        uint64_t o = atomic_load_explicit(&order_next, memory_order_relaxed);
        atomic_store_explicit(&order_next, o + 1, memory_order_relaxed);
        return o;
    }
    return atomic_fetch_add_explicit(&order_next, 1, memory_order_relaxed);
}

HOT void put(struct rec_thread *t, struct hbt_event *e, uint64_t *seq)
{
    if (!hbt_chunk_has_room(&t->c))
        flush(t);
    if (t->untimed == 0) {
        t->last_ns = now_ns();
        t->untimed = TIME_EVERY;
    }
    t->untimed--;
    e->ns = t->last_ns;
    /* after a producing call returned and before a consuming one runs: every event that
     * depends on this one (the consumer of its object) takes a later number */
    e->order = take_order(t);
    *seq = hbt_chunk_put(&t->c, e);
}

/* Raw mode, the stamped order: t's next number (above its previous one, unique by its low bits). */
HOT uint64_t take_stamp(struct rec_thread *t)
{
    _mm_lfence(); /* the TSC is read after every load before it: the object this event uses was seen */
    uint64_t now = __rdtsc();
    uint64_t o = stamp.base + ((now > stamp.tsc0 ? now - stamp.tsc0 : 0) << STAMP_BITS) + (uint64_t)(t - threads);
    if (__builtin_expect(o <= t->stamp_last, 0)) /* the same tick again (or a CPU's TSC behind) */
        o = t->stamp_last + (1u << STAMP_BITS);
    t->stamp_last = o;
    return o;
}

/* Raw mode: the order becomes shared (the caller holds order_lock): numbers from next on, stamped
 * when the TSC is invariant, else taken with a fetch-add. */
static COLD void order_go_shared(uint64_t next)
{
    atomic_store(&order_next, next);
    if (R.use_tsc && !stamp.on) {
        stamp.base = next;
        stamp.tsc0 = __rdtsc();
        stamp.on = 1;
    }
    atomic_store_explicit(&order_owner, ORDER_SHARED, memory_order_release);
}

/* The shared order's next number (order_owner read ORDER_SHARED). */
HOT uint64_t take_shared(struct rec_thread *t)
{
    atomic_thread_fence(memory_order_acquire); /* stamp, written before ORDER_SHARED was stored */
    if (stamp.on)
        return take_stamp(t);
    return atomic_fetch_add_explicit(&order_next, 1, memory_order_relaxed);
}

/* Raw mode: t, which does not own the order, takes it over (or, past ORDER_REVOKES take-overs, makes
 * it shared). The owner reads order_owner without any barrier of its own; the membarrier makes it
 * pass one, so that its next event sees the change: an event it began before took at most the number
 * its counter holds after the membarrier, and the new owner starts above that. */
static COLD uint64_t order_take_over(struct rec_thread *t)
{
    spin_take(&order_lock);
    struct rec_thread *old = atomic_load(&order_owner);
    uint64_t o;
    if (old == ORDER_SHARED) {
        o = take_shared(t);
    } else if (old == t) {
        o = atomic_load(&t->order_local);
        atomic_store(&t->order_local, o + 1);
    } else {
        atomic_store(&order_owner, ORDER_TRANSIT);
        if (old)
            syscall(SYS_membarrier, MEMBARRIER_CMD_PRIVATE_EXPEDITED, 0, 0);
        uint64_t base = old ? atomic_load(&old->order_local) + 1 : atomic_load(&order_next);
        if (++order_revokes > ORDER_REVOKES) { /* threads that run at once: every event stamps or fetch-adds */
            order_go_shared(base + 1);
        } else {
            atomic_store(&t->order_local, base + 1);
            atomic_store_explicit(&order_owner, t, memory_order_release);
        }
        o = base;
    }
    spin_drop(&order_lock);
    return o;
}

/* Raw mode's order: the owner's plain counter, else the shared counter or a take-over. *follows: the
 * number follows the thread's previous one (the owner's counter, whose first number came from a
 * take-over), so its event needs no order word. */
HOT uint64_t take_order_raw(struct rec_thread *t, int *follows)
{
    struct rec_thread *own = atomic_load_explicit(&order_owner, memory_order_relaxed);
    if (__builtin_expect(own == t, 1)) {
        uint64_t o = atomic_load_explicit(&t->order_local, memory_order_relaxed);
        atomic_store_explicit(&t->order_local, o + 1, memory_order_relaxed);
        *follows = 1;
        return o;
    }
    *follows = 0;
    if (own == ORDER_SHARED)
        return take_shared(t);
    return order_take_over(t);
}

/* Raw mode: the owner's block is full and it does not hold its recorder (the hot path): takes it for
 * the write; when exit has closed it, the thread records nothing more (the event being recorded
 * lands in the block's slack, never written). */
static COLD void raw_flush_owner(struct rec_thread *t)
{
    int idle = ST_IDLE;
    if (atomic_compare_exchange_strong(&t->state, &idle, ST_BUSY)) {
        flush_raw(t);
        atomic_store_explicit(&t->state, ST_IDLE, memory_order_release);
    } else {
        tls.me = NULL;
        tls.dead = 1;
    }
}

/* Raw mode: one raw event (its time and order taken here); the post-pass names its objects. held:
 * the caller holds the thread (state BUSY: rec_enter, exit), else it is the hot path's owner. */
HOT void put_raw_at(struct rec_thread *t, unsigned kind, uintptr_t addr, uint64_t size, int extra, uint64_t xword, int held)
{
    if (__builtin_expect(!raw_block_has_room(&t->rb), 0)) {
        if (held)
            flush_raw(t);
        else
            raw_flush_owner(t);
    }
    int timed = t->untimed == 0;
    if (timed) {
        t->last_ns = now_ns();
        t->untimed = RAW_TIME_EVERY;
    }
    t->untimed--;
    int follows;
    uint64_t o = take_order_raw(t, &follows);
    if (__builtin_expect(follows, 1)) /* two copies: the owner's, which writes no order, kept apart */
        raw_put(&t->rb, kind, addr, size, o, 0, timed, t->last_ns, extra, xword);
    else
        raw_put(&t->rb, kind, addr, size, o, 1, timed, t->last_ns, extra, xword);
}

HOT void put_raw(struct rec_thread *t, unsigned kind, uintptr_t addr, uint64_t size, int extra, uint64_t xword)
{
    put_raw_at(t, kind, addr, size, extra, xword, 1);
}

/* Raw mode's hot path, for a call the wrapper has already made (tls.busy held around it): no state
 * word, no atomic read-modify-write while the process has had one thread. Exit closes a thread's
 * block by its state word (raw_flush_owner) and writes it up to its last whole event (raw_put
 * publishes the block's end after the event's words). */
static COLD struct rec_thread *raw_thread(void)
{
    if (!R.enabled || tls.dead)
        return NULL;
    return register_thread(); /* NULL in raw mode when past HBT_MAX_THREADS */
}

HOT void raw_event(unsigned kind, uintptr_t addr, uint64_t size, int extra, uint64_t xword)
{
    struct rec_thread *t = tls.me;
    if (__builtin_expect(t != NULL, 1) || (t = raw_thread()))
        put_raw_at(t, kind, addr, size, extra, xword, 0);
}

void rec_raw_frame(uintptr_t pc, unsigned index, unsigned frames)
{
    raw_event(RAW_EXT, pc, RAW_X_FRAME, 1, raw_frame_word(index, frames));
}

/* Raw mode: a sampled allocation's whole stack (record_site.c), or its lone frame when the mode takes none. */
static COLD void site_sample(uintptr_t pc)
{
    tls.site_left = rec_site_every() - 1;
    tls.last_site = pc;
    rec_site_stack(pc);
}

/* Raw mode: an allocation at another caller than the thread's previous one: its frame, or its whole
 * stack when the mode samples stacks and none was taken at this caller yet. */
static COLD void site_change(uintptr_t pc)
{
    if (R.sites == REC_SITES_SAMPLE && !rec_site_seen(pc))
        return site_sample(pc);
    tls.last_site = pc;
    if (R.sites != REC_SITES_NONE)
        rec_raw_frame(pc, 0, 1);
}

/* Raw mode: the call site pc (the allocating call's return address) of the allocation about to be
 * recorded (the caller holds tls.busy); big: a block of REC_SITE_BIG bytes or more, whose whole stack
 * is taken. A run of allocations from one site costs a decrement and two compares each. */
HOT void site_note(uintptr_t pc, int big)
{
    if (__builtin_expect(tls.site_left == 0 || big, 0))
        return site_sample(pc);
    tls.site_left--;
    if (__builtin_expect(pc != tls.last_site, 0))
        site_change(pc);
}

void rec_raw_touch(uintptr_t addr, uint64_t pages, uint64_t resident)
{
    if (pages <= UINT32_MAX) /* a block of 16 TiB or more: no record (replayed wholly written) */
        raw_event(RAW_EXT, addr, RAW_X_TOUCH, 1, raw_touch_word(pages, resident));
}

uint64_t rec_put_at(struct rec_thread *t, struct hbt_event *e, uintptr_t addr)
{
    if (!R.raw)
        return rec_put(t, e);
    put_raw(t, e->kind, (e->flags & HBT_F_FAILED) ? 0 : addr, e->size, 0, 0);
    return addr + 1; /* any id but HBT_NONE: the post-pass names the object by its address */
}

uint64_t rec_put(struct rec_thread *t, struct hbt_event *e)
{
    uint64_t seq;
    put(t, e, &seq);
    return seq == HBT_NONE ? HBT_NONE : rec_id(t->c.thread, seq);
}

/* The object at p ends here (free or realloc): fills e's reference from the map (a large block is
 * measured first: record_touch.c). */
HOT void consume(struct rec_thread *t, struct hbt_event *e, void *p)
{
    uint64_t id;
    if (!p) {
        e->flags |= HBT_F_NOREF;
    } else if (obj_map_take((uintptr_t)p, &id)) {
        rec_ref(e, rec_touch_take(t, p, id));
    } else {
        e->flags |= HBT_F_NOREF;
        atomic_fetch_add_explicit(&R.unknown_refs, 1, memory_order_relaxed);
    }
}

/* Records a call that may produce the object p of size n. */
HOT void produce(struct rec_thread *t, struct hbt_event *e, void *p)
{
    uint64_t seq;
    if (!p)
        e->flags |= HBT_F_FAILED;
    put(t, e, &seq);
    if (seq != HBT_NONE)
        obj_map_put((uintptr_t)p, rec_touch_mark(p, e->size, rec_id(t->c.thread, seq)));
}

/* Raw mode: an allocating call that returned p (the caller holds tls.busy, released here); pc: its call site. */
HOT void raw_alloc(unsigned kind, size_t align, size_t n, void *p, uintptr_t pc)
{
    site_note(pc, n >= REC_SITE_BIG);
    raw_event(kind, (uintptr_t)p, n, raw_kind_extra(kind), align ? (uint64_t)__builtin_ctzll(align) : 0);
    rec_touch_raw_mark(p, n);
    tls.busy = 0;
}

HOT void record_alloc(struct rec_thread *t, unsigned kind, size_t align, size_t n, void *p)
{
    struct hbt_event e = {.kind = (uint8_t)kind, .size = n};
    e.align_log = (uint8_t)(align ? __builtin_ctzll(align) : 0);
    produce(t, &e, p);
    leave(t);
}

/* ---- the malloc API ---- */

/* malloc in format-3 mode, and before the real functions are known. */
static __attribute__((noinline, flatten)) void *malloc_chunked(size_t n)
{
    if (__builtin_expect(!real.free, 0)) {
        resolve();
        if (!real.malloc)
            return boot_alloc(n);
    }
    struct rec_thread *t = enter();
    void *p = real.malloc(n);
    if (t)
        record_alloc(t, HBT_MALLOC, 0, n, p);
    return p;
}

/* Raw mode's malloc of a block of REC_TOUCH_MIN bytes or more (a candidate for touch records). */
static __attribute__((noinline, flatten)) void *malloc_large(size_t n, uintptr_t pc)
{
    if (tls.busy)
        return real.malloc(n);
    tls.busy = 1;
    void *p = real.malloc(n);
    site_note(pc, n >= REC_SITE_BIG);
    raw_event(HBT_MALLOC, (uintptr_t)p, n, 0, 0);
    rec_touch_raw_born(p, n);
    tls.busy = 0;
    return p;
}

/* Raw mode first: the hot path of the most malloc-heavy programs (docs/measurements/recorder.md).
 * A large block takes its own copy (malloc_large), so that the small one's size is known to fit in
 * the event's first word (REC_TOUCH_MIN == RAW_SIZE_INLINE): the touch records cost it nothing. */
_Static_assert(REC_TOUCH_MIN == RAW_SIZE_INLINE, "malloc's small path leaves out raw_put's size test");
EXPORT __attribute__((flatten)) void *malloc(size_t n)
{
    if (__builtin_expect(!R.raw, 0)) /* R.raw is set once the real functions are known */
        return malloc_chunked(n);
    if (__builtin_expect(n >= REC_TOUCH_MIN, 0))
        return malloc_large(n, (uintptr_t)__builtin_return_address(0));
    if (tls.busy)
        return real.malloc(n);
    tls.busy = 1;
    void *p = real.malloc(n);
    site_note((uintptr_t)__builtin_return_address(0), 0);
    raw_event(HBT_MALLOC, (uintptr_t)p, n, 0, 0);
    tls.busy = 0;
    return p;
}

EXPORT __attribute__((flatten)) void *calloc(size_t m, size_t n)
{
    if (__builtin_expect(!real.calloc, 0)) {
        resolve();
        if (!real.calloc)
            return boot_alloc(m * n); /* dlsym's own small calloc; the arena is zeroed */
    }
    size_t total = __builtin_mul_overflow(m, n, &total) ? SIZE_MAX : total;
    if (R.raw && !tls.busy) {
        tls.busy = 1;
        void *p = real.calloc(m, n);
        site_note((uintptr_t)__builtin_return_address(0), total >= REC_SITE_BIG);
        raw_event(HBT_CALLOC, (uintptr_t)p, total, 0, 0);
        rec_touch_raw_mark(p, total);
        tls.busy = 0;
        return p;
    }
    struct rec_thread *t = enter();
    void *p = real.calloc(m, n);
    if (t)
        record_alloc(t, HBT_CALLOC, 0, total, p);
    return p;
}

/* free in format-3 mode, and before the real functions are known. */
static __attribute__((noinline, flatten)) void free_chunked(void *p)
{
    if (__builtin_expect(!real.free, 0))
        resolve();
    struct rec_thread *t = enter();
    if (t) {
        struct hbt_event e = {.kind = HBT_FREE};
        uint64_t seq;
        consume(t, &e, p);
        put(t, &e, &seq);
    }
    real.free(p); /* inside the recorder's hold, as every real call: its mappings are the allocator's */
    if (t)
        leave(t);
}

EXPORT __attribute__((flatten)) void free(void *p)
{
    if (!p || is_boot(p))
        return;
    if (__builtin_expect(!R.raw, 0))
        return free_chunked(p);
    if (tls.busy)
        return real.free(p);
    tls.busy = 1;
    rec_touch_raw_take(p); /* a large block's measure, before its end and the real free */
    raw_event(HBT_FREE, (uintptr_t)p, 0, 0, 0); /* before the real free: a thread that gets p back orders after it */
    real.free(p);
    tls.busy = 0;
}

/* realloc and reallocarray: the old object ends, a new one starts; a failed call keeps the
 * old one (unless it asked for 0 bytes: glibc's realloc(p, 0) frees p and returns NULL). */
static __attribute__((flatten)) void *realloc_common(unsigned kind, void *p, size_t m, size_t n, uintptr_t pc)
{
    size_t total = __builtin_mul_overflow(m, n, &total) ? SIZE_MAX : total;
    if (__builtin_expect(!real.free, 0))
        resolve();
    if (is_boot(p)) {
        void *q = malloc(total);
        if (q)
            memcpy(q, p, total < (size_t)(boot + sizeof boot - (char *)p) ? total : (size_t)(boot + sizeof boot - (char *)p));
        return q;
    }
    if (R.raw && !tls.busy) {
        /* p's end is ordered before the real call (which may free p for another thread's malloc), q's
         * start after it, as the in-process writer takes p out of its map before and puts q after */
        tls.busy = 1;
        if (p) {
            rec_touch_raw_take(p);
            raw_event(RAW_EXT, (uintptr_t)p, RAW_X_TAKE, 1, 0);
        }
        void *q = kind == HBT_REALLOC ? real.realloc(p, n) : real.reallocarray(p, m, n);
        site_note(pc, total >= REC_SITE_BIG);
        raw_event(kind, (uintptr_t)q, total, 1, (uintptr_t)p);
        rec_touch_raw_mark(q, total);
        tls.busy = 0;
        return q;
    }
    struct rec_thread *t = enter();
    if (!t)
        return kind == HBT_REALLOC ? real.realloc(p, n) : real.reallocarray(p, m, n);
    struct hbt_event e = {.kind = (uint8_t)kind, .size = total};
    consume(t, &e, p);
    void *q = kind == HBT_REALLOC ? real.realloc(p, n) : real.reallocarray(p, m, n);
    if (!q && total > 0 && p && !(e.flags & HBT_F_NOREF)) /* failed: p lives on under its id */
        obj_map_put((uintptr_t)p, rec_id(e.ref_thread, e.ref_seq));
    produce(t, &e, q);
    leave(t);
    return q;
}

EXPORT void *realloc(void *p, size_t n) { return realloc_common(HBT_REALLOC, p, 1, n, (uintptr_t)__builtin_return_address(0)); }
EXPORT void *reallocarray(void *p, size_t m, size_t n)
{
    return realloc_common(HBT_REALLOCARRAY, p, m, n, (uintptr_t)__builtin_return_address(0));
}

EXPORT int posix_memalign(void **out, size_t align, size_t n)
{
    if (__builtin_expect(!real.free, 0))
        resolve();
    if (R.raw && !tls.busy) {
        tls.busy = 1;
        int rc = real.posix_memalign(out, align, n);
        raw_alloc(HBT_POSIX_MEMALIGN, align, n, rc == 0 ? *out : NULL, (uintptr_t)__builtin_return_address(0));
        return rc;
    }
    struct rec_thread *t = enter();
    int rc = real.posix_memalign(out, align, n);
    if (t)
        record_alloc(t, HBT_POSIX_MEMALIGN, align, n, rc == 0 ? *out : NULL);
    return rc;
}

/* aligned_alloc, memalign, valloc, pvalloc: one shape, the real function differs. */
#define ALIGNED_HOOK(name, kind, params, call, align)                                          \
    EXPORT void *name params                                                                   \
    {                                                                                          \
        if (__builtin_expect(!real.free, 0))                                                   \
            resolve();                                                                         \
        if (R.raw && !tls.busy) {                                                              \
            tls.busy = 1;                                                                      \
            void *p = call;                                                                    \
            raw_alloc(kind, align, n, p, (uintptr_t)__builtin_return_address(0));              \
            return p;                                                                          \
        }                                                                                      \
        struct rec_thread *t = enter();                                                        \
        void *p = call;                                                                        \
        if (t)                                                                                 \
            record_alloc(t, kind, align, n, p);                                                \
        return p;                                                                              \
    }
ALIGNED_HOOK(aligned_alloc, HBT_ALIGNED_ALLOC, (size_t align, size_t n), real.aligned_alloc(align, n), align)
ALIGNED_HOOK(memalign, HBT_MEMALIGN, (size_t align, size_t n), real.memalign(align, n), align)
ALIGNED_HOOK(valloc, HBT_VALLOC, (size_t n), real.valloc(n), 0)
ALIGNED_HOOK(pvalloc, HBT_PVALLOC, (size_t n), real.pvalloc(n), 0)

/* ---- process life: start, fork, exit ---- */

static void read_command(char *out, size_t cap)
{
    ssize_t n = wl_read_small("/proc/self/cmdline", out, cap);
    n = n < 0 ? 0 : n;
    for (ssize_t i = 0; i < n; i++)
        out[i] = out[i] ? out[i] : ' ';
    while (n > 0 && out[n - 1] == ' ')
        n--;
    out[n] = '\0';
}

static void header_start(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    R.h.start_unix_ns = (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
    R.h.pid = (uint64_t)getpid();
    R.h.ppid = (uint64_t)getppid();
    R.h.page_size = (uint64_t)sysconf(_SC_PAGESIZE);
    read_command(R.h.command, sizeof R.h.command);
}

/* One object a fork child inherited: a malloc event in the child's thread 0, which becomes its
 * new name. Its size is the allocator's usable size (the map keeps no requested sizes). */
static void inherit(void *arg, uintptr_t addr, uint64_t *id)
{
    struct rec_thread *t = arg;
    struct hbt_event e = {.kind = HBT_MALLOC, .size = real.usable_size ? real.usable_size((void *)addr) : 0};
    uint64_t seq;
    put(t, &e, &seq);
    *id = rec_touch_renamed(addr, *id, seq); /* a large block keeps its mark, under its new name */
}

/* Before a fork, in the parent (raw mode): its file exists, so the child can name it as its parent's. */
static void atfork_prepare(void)
{
    if (!R.enabled || !R.raw || atomic_load(&R.file) != FILE_CLOSED)
        return;
    int busy = tls.busy;
    tls.busy = 1;
    open_trace();
    tls.busy = busy;
}

/* In a fork child (one thread): the parent's threads, file and unwritten events are the
 * parent's; the child's thread 0 first re-creates every live object it inherited. */
static void atfork_child(void)
{
    if (!R.enabled)
        return;
    tls.busy = 1;
    /* raw mode: the post-pass re-creates the inherited heap from the parent's raw file up to here */
    struct rec_thread *own = atomic_load(&order_owner);
    if (own == ORDER_SHARED && stamp.on) /* above every stamp taken before now */
        R.pre.fork_order = stamp.base + ((__rdtsc() - stamp.tsc0 + 1) << STAMP_BITS);
    else
        R.pre.fork_order = own == ORDER_SHARED || !own ? atomic_load(&order_next) : atomic_load(&own->order_local);
    snprintf(R.pre.parent, sizeof R.pre.parent, "%s", R.name);
    close(R.fd);
    close(R.hdr_fd);
    R.fd = R.hdr_fd = -1;
    atomic_store(&R.file, FILE_CLOSED);
    uint32_t n = atomic_load(&R.nthreads);
    memset(threads, 0, sizeof threads[0] * (n < HBT_MAX_THREADS ? n : HBT_MAX_THREADS));
    atomic_store(&R.nthreads, 0);
    atomic_store(&order_next, 0);
    atomic_store(&order_shared, 0); /* the child has one thread */
    atomic_store(&order_owner, NULL);
    stamp.on = 0;
    atomic_flag_clear(&order_lock);
    order_revokes = 0;
    atomic_store(&R.unknown_refs, 0);
    atomic_store(&R.lost_threads, 0);
    tls.me = NULL;
    tls.dead = 0;
    rec_touch_fork();
    fast_init(); /* the child is a new process for membarrier */
    raw_order_init();
    atomic_store(&fast_open, fast_ok && !R.raw);
    R.mono0 = mono_ns();
    R.tsc0 = __rdtsc();
    header_start();
    struct rec_thread *t = register_thread();
    if (t != &lost_thread && !R.raw) {
        obj_map_each(inherit, t);
        rec_map_inherit(t);
    } else {
        rec_map_inherit(NULL);
    }
    tls.busy = 0;
}

__attribute__((constructor)) static void rec_init(void)
{
    tls.busy = 1;
    resolve();
    const char *dir = getenv("HEAPBENCH_RECORD_DIR");
    if (!dir || !*dir || strlen(dir) >= sizeof R.dir) {
        dprintf(2, "hbrecord: HEAPBENCH_RECORD_DIR is not set (or too long); nothing is recorded: use heapbench record\n");
        tls.busy = 0;
        return;
    }
    strcpy(R.dir, dir);
    const char *raw = getenv("HEAPBENCH_RECORD_RAW");
    R.raw = raw && strcmp(raw, "1") == 0 && real.free; /* malloc and free test only R.raw */
    if (R.raw) {
        int sites = rec_site_init();
        R.sites = sites < 0 ? REC_SITES_SAMPLE : sites;
    }
    R.pre.fork_order = RAW_NO_FORK;
    Dl_info info;
    if (real.malloc && dladdr((void *)real.malloc, &info) && info.dli_fname)
        snprintf(R.h.allocator, sizeof R.h.allocator, "%s", info.dli_fname);
    clock_init();
    header_start();
    rec_touch_init(R.h.page_size, real.usable_size);
    void *tm = mmap(NULL, THREADS_BYTES, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    threads = tm == MAP_FAILED ? NULL : tm;
    if (threads && (R.raw || obj_map_init() == 0) && rec_map_init((void *)real.malloc) == 0 && pthread_key_create(&R.key, thread_gone) == 0 &&
        pthread_atfork(atfork_prepare, NULL, atfork_child) == 0) {
        fast_init();
        raw_order_init();
        R.enabled = 1;
        atomic_store(&fast_open, fast_ok && !R.raw); /* raw mode's hot path takes no busy word (raw_event) */
    }
    else
        dprintf(2, "hbrecord: cannot set up the recorder (out of memory?); nothing is recorded\n");
    tls.busy = 0;
}

/* A normal exit: every thread's last chunk, then the header's totals (complete = 1). */
__attribute__((destructor)) static void rec_fini(void)
{
    if (!R.enabled)
        return;
    tls.busy = 1;
    begin_closing();
    uint32_t n = atomic_load(&R.nthreads);
    n = n < HBT_MAX_THREADS ? n : HBT_MAX_THREADS;
    uint64_t ops = 0;
    uint32_t held = 0;
    for (uint32_t i = 0; i < n; i++) {
        held += !close_thread(&threads[i], 0);
        ops += threads[i].written_ops;
    }
    rec_touch_exit();
    R.enabled = 0;
    if (R.raw)
        tls.me = NULL, tls.dead = 1; /* its block is closed: what the process does after this is not recorded */
    if (R.fd < 0 || atomic_load(&R.file) != FILE_OPEN) /* never opened, or a write failed: not complete */
        return;
    if (held) { /* a thread's last events are not in the trace: it does not claim to be complete */
        dprintf(2, "hbrecord: %u thread(s) of pid %llu did not finish their allocator call within %llu s of the exit; their "
                   "unwritten events are left out and the trace says complete: no (record it again on a less loaded machine)\n",
                held, (unsigned long long)R.h.pid, CLOSE_WAIT_NS / 1000000000ull);
        return;
    }
    if (R.raw)
        rec_site_maps(R.dir, R.name);
    R.h.complete = 1;
    R.h.threads = n;
    R.h.ops = ops;
    R.h.duration_ns = now_ns();
    R.h.unknown_refs = atomic_load(&R.unknown_refs);
    R.h.lost_threads = atomic_load(&R.lost_threads);
    rec_map_counts(&R.h.partial_unmaps, &R.h.lost_maps);
    write_header();
}
