/* record_touch.c - the recorder's touch records (trace.h, format 4): for each heap block of at
 * least a page, how many of the whole pages inside it the program made resident, measured with
 * mincore(2) when the block ends (free, realloc) or, for blocks still live, at a normal exit.
 * A page the program never wrote is never resident, and a replay that writes every page of such
 * a block (an output buffer sized for the worst case, filled to 30%) holds more heap than the
 * program did; the replayer writes as many pages as the record says.
 * Always holds: only marked blocks (REC_TOUCH_MARK: at least TOUCH_FLOOR bytes and a page) cost anything (a lock and
 * an entry in the table of live large blocks, up to LIVE_MAX of them, a malloc_usable_size call and one mincore per 16
 * MiB of the block at its end); a record is kept only for a block not wholly resident; each
 * thread appends to its own buffer (mmap'd at its first record, the caller holds its thread),
 * written as one touch chunk when full and when the thread closes; the exit's measure reads only
 * the table (addresses, requested sizes, ids) and mincore, never the program's memory, so a
 * thread still running and freeing blocks cannot make it fault; nothing here allocates through
 * malloc. In raw mode (no ids in the process) the table, keyed by address, is what marks a block
 * large: a block's end looks at its address's filter byte (rec_touch_filter) and only on a hit in
 * the table; its measure goes into the thread's raw stream (RAW_X_TOUCH) before the event that
 * ends it, and the exit's measures into RAW_BLOCK_TOUCH blocks of addresses: the post-pass names
 * the objects and writes the same touch chunks (rawtrace.h). */
#include "common/oa_table.h"
#include "common/rawtrace.h"
#include "record.h"
#include "spin.h"
#include "trace.h"

#include <stdatomic.h>
#include <sys/mman.h>

/* The recorder's mappings are multiples of 64 KiB and none a multiple of 2 MiB, so that the
 * program's own mappings keep their offsets modulo 64 KiB (obj_map.c, MAP_PAD). */
#define TOUCH_BYTES (64u << 10)        /* one thread's touch chunk */
/* The smallest block measured: 128 KiB (glibc's first mmap threshold). Measuring costs a lock, a
 * table entry and a mincore(2) system call per block; at every page size, churn-random (43% of
 * its blocks 4 KiB-256 KiB) paid 1.44-1.58x CPU recorded against 0.93-1.00 unmeasured, at 128 KiB
 * 1.22; the heap of xz, zstd, pbzip2, python3-threads, python3-alloc and sqlite3 replayed the same
 * (docs/measurements/replay-fidelity.md). */
#define TOUCH_FLOOR (128u << 10)
#define VEC_PAGES 4096u                /* pages per mincore call */
#define EXIT_BUF HBT_MAX_THREADS      /* the buffer of the exit's records */
#define LIVE_BITS 18
#define LIVE_SLOTS (1u << LIVE_BITS)   /* the table of live large blocks: 6 MiB mapped (MAP_NORESERVE), resident as filled */
#define LIVE_BYTES (LIVE_SLOTS * sizeof(struct live) + (64u << 10)) /* 64 KiB more: not a multiple of 2 MiB */
#define LIVE_MAX (LIVE_SLOTS / 4 * 3)  /* past it a new large block is measured at its end only */

struct live {
    uintptr_t addr;                    /* 0: empty */
    uint64_t size, id;                 /* requested bytes; its id (no mark) */
};

static uint64_t touch_min = UINT64_MAX; /* TOUCH_FLOOR (or a larger page) once rec_touch_init found malloc_usable_size: nothing is marked before */
static uint64_t page;
static size_t (*usable)(void *);
static struct hbt_touch_chunk bufs[HBT_MAX_THREADS + 1];
static struct live *live;             /* open addressing on common/oa_table.h's core, keyed by address */
uint8_t rec_touch_filter[1u << REC_TOUCH_FILTER_BITS]; /* record.h: 1 MiB, a multiple of 64 KiB */
static uint64_t nlive;
static atomic_flag live_lock = ATOMIC_FLAG_INIT;

static void lock(void) { spin_take(&live_lock); }
static void unlock(void) { spin_drop(&live_lock); }

void rec_touch_init(uint64_t page_size, size_t (*usable_size)(void *))
{
    page = page_size;
    usable = usable_size;
    void *m = mmap(NULL, LIVE_BYTES, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    live = m == MAP_FAILED ? NULL : m;
    touch_min = usable && page && live ? (page > TOUCH_FLOOR ? page : TOUCH_FLOOR) : UINT64_MAX;
}

static inline uint64_t live_home(uint64_t addr) { return oa_mix(addr >> 4) >> (64 - LIVE_BITS); }
/* The slot of addr in the table of live large blocks, or the empty slot where it would go. */
static inline uint64_t live_slot(uintptr_t addr) { return oa_find(live, sizeof *live, LIVE_SLOTS - 1, live_home(addr), addr); }

static inline uint8_t *filter_of(uintptr_t addr) { return &rec_touch_filter[rec_touch_slot(addr)]; }

/* Puts the block p into the table of live large blocks, when there is room. */
static void live_add(void *p, uint64_t size, uint64_t id)
{
    lock();
    if (nlive < LIVE_MAX) {
        uint64_t i = live_slot((uintptr_t)p);
        if (live[i].addr == 0) {
            uint8_t *f = filter_of((uintptr_t)p);
            nlive++;
            *f += *f < UINT8_MAX;
        }
        live[i] = (struct live){(uintptr_t)p, size, id};
    }
    unlock();
}

uint64_t rec_touch_born(void *p, uint64_t size, uint64_t id)
{
    if (size < touch_min || !p)
        return id;
    live_add(p, size, id);
    return id | REC_TOUCH_MARK;
}

void rec_touch_raw_born(void *p, uint64_t size)
{
    if (size >= touch_min && p)
        live_add(p, size, 0);
}

/* Takes addr out of the table, if there (the caller holds the lock): 1, or 0 when absent. */
static int drop_live(uintptr_t addr)
{
    uint64_t i = live_slot(addr);
    if (!live[i].addr)
        return 0;
    uint8_t *f = filter_of(addr);
    *f -= *f < UINT8_MAX; /* saturated: stays (a later end of a small block there only looks in the table) */
    oa_remove(live, sizeof *live, LIVE_SLOTS - 1, i, live_home);
    nlive--;
    return 1;
}

/* The whole pages inside [a, a + len) and how many are resident: 1, or 0 when it has none or
 * mincore fails (a range no longer mapped: ENOMEM). */
static int measure(uintptr_t a, uint64_t len, uint64_t *pages, uint64_t *resident)
{
    uintptr_t start = (a + page - 1) & ~(uintptr_t)(page - 1), end = (a + len) & ~(uintptr_t)(page - 1);
    if (end <= start)
        return 0;
    unsigned char vec[VEC_PAGES];
    uint64_t n = (end - start) / page, res = 0;
    for (uint64_t done = 0; done < n;) {
        uint64_t k = n - done < VEC_PAGES ? n - done : VEC_PAGES;
        if (mincore((void *)(start + done * page), k * page, vec) != 0)
            return 0;
        for (uint64_t i = 0; i < k; i++)
            res += vec[i] & 1;
        done += k;
    }
    *pages = n;
    *resident = res;
    return 1;
}

static void write_out(struct hbt_touch_chunk *c)
{
    size_t len = hbt_touch_seal(c);
    if (len)
        rec_write(c->buf, len);
    hbt_touch_reset(c);
}

/* measure, and 1 only when the block has whole pages not all resident (a record is kept). */
static int partly_resident(uintptr_t a, uint64_t len, uint64_t *pages, uint64_t *resident)
{
    return measure(a, len, pages, resident) && *resident < *pages;
}

/* Keeps the record of object id (no mark), len bytes at a, in buffer i when not wholly resident. */
static void keep(unsigned i, uintptr_t a, uint64_t len, uint64_t id)
{
    struct hbt_touch r = {.thread = (uint16_t)(id >> 48), .seq = id & ((1ull << 48) - 1)};
    if (!partly_resident(a, len, &r.pages, &r.resident))
        return;
    struct hbt_touch_chunk *c = &bufs[i];
    if (!c->buf) {
        void *b = mmap(NULL, TOUCH_BYTES, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (b == MAP_FAILED)
            return; /* no record: the block is replayed wholly written */
        hbt_touch_init(c, b, TOUCH_BYTES, (uint16_t)(i < HBT_MAX_THREADS ? i : 0));
    }
    if (!hbt_touch_has_room(c))
        write_out(c);
    hbt_touch_put(c, &r);
}

uint64_t rec_touch_note(struct rec_thread *t, void *p, uint64_t id)
{
    id &= ~REC_TOUCH_MARK;
    lock();
    drop_live((uintptr_t)p);
    unlock();
    keep(rec_thread_no(t), (uintptr_t)p, usable(p), id);
    return id;
}

void rec_touch_raw_end(void *p)
{
    lock();
    int was = drop_live((uintptr_t)p);
    unlock();
    uint64_t pages, res;
    if (was && partly_resident((uintptr_t)p, usable(p), &pages, &res))
        rec_raw_touch((uintptr_t)p, pages, res);
}

void rec_touch_close(uint16_t thread)
{
    struct hbt_touch_chunk *c = &bufs[thread];
    if (!c->buf)
        return;
    write_out(c);
    munmap(c->buf, TOUCH_BYTES);
    c->buf = NULL;
}

void rec_touch_fork(void)
{
    atomic_flag_clear(&live_lock); /* another thread of the parent may have held it: the child has one */
    for (unsigned i = 0; i <= HBT_MAX_THREADS; i++)
        if (bufs[i].buf)
            hbt_touch_reset(&bufs[i]);
}

uint64_t rec_touch_renamed(uintptr_t addr, uint64_t old, uint64_t seq)
{
    if ((int64_t)old >= 0)
        return seq;
    uint64_t i = live_slot(addr);
    if (live[i].addr)
        live[i].id = seq;
    return seq | REC_TOUCH_MARK;
}

/* Raw mode's exit: the measures of the blocks still live, as RAW_BLOCK_TOUCH blocks (the caller
 * holds the lock). */
static void exit_raw(void)
{
    uint8_t *buf = mmap(NULL, TOUCH_BYTES, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (buf == MAP_FAILED)
        return; /* no record: the blocks are replayed wholly written */
    uint64_t *w = (uint64_t *)(buf + RAW_BLOCK_HEADER), n = 0, cap = (TOUCH_BYTES - RAW_BLOCK_HEADER) / 16;
    for (uint64_t i = 0, seen = 0; i < LIVE_SLOTS && seen < nlive; i++) {
        uint64_t pages, res;
        if (!live[i].addr)
            continue;
        seen++;
        if (!partly_resident(live[i].addr, live[i].size, &pages, &res) || pages > UINT32_MAX)
            continue;
        w[2 * n] = live[i].addr;
        w[2 * n + 1] = raw_touch_word(pages, res);
        if (++n == cap) {
            raw_touch_block_header(buf, (uint32_t)(n * 16));
            rec_write(buf, RAW_BLOCK_HEADER + n * 16);
            n = 0;
        }
    }
    if (n) {
        raw_touch_block_header(buf, (uint32_t)(n * 16));
        rec_write(buf, RAW_BLOCK_HEADER + n * 16);
    }
    munmap(buf, TOUCH_BYTES);
}

void rec_touch_exit(void)
{
    if (!live)
        return;
    lock();
    if (rec_raw()) {
        exit_raw();
        unlock();
        return;
    }
    for (uint64_t i = 0, seen = 0; i < LIVE_SLOTS && seen < nlive; i++)
        if (live[i].addr) {
            seen++;
            keep(EXIT_BUF, live[i].addr, live[i].size, live[i].id);
        }
    unlock();
    rec_touch_close(EXIT_BUF);
}
