/* record_touch.c - the recorder's touch records (trace.h, format 4): for each heap block of at
 * least a page, how many of the whole pages inside it the program made resident, measured with
 * mincore(2) when the block ends (free, realloc) or, for blocks still live, at a normal exit.
 * A page the program never wrote is never resident, and a replay that writes every page of such
 * a block (an output buffer sized for the worst case, filled to 30%) holds more heap than the
 * program did; the replayer writes as many pages as the record says.
 * Always holds: only marked blocks (REC_TOUCH_MARK: at least rec_touch_min bytes) cost anything
 * (a malloc_usable_size call, one mincore per 16 MiB of the block); a record is kept only for a
 * block not wholly resident; each thread appends to its own buffer (mmap'd at its first record,
 * the caller holds its thread), written as one touch chunk when full and when the thread
 * closes; nothing here allocates through malloc. */
#include "obj_map.h"
#include "record.h"
#include "trace.h"

#include <stdatomic.h>
#include <sys/mman.h>

#define TOUCH_BYTES (16u << 10)        /* one thread's touch chunk */
#define VEC_PAGES 4096u                /* pages per mincore call */
#define EXIT_BUF HBT_MAX_THREADS      /* the buffer of the exit walk */

uint64_t rec_touch_min = UINT64_MAX;   /* nothing is marked until rec_touch_init */
static uint64_t page;
static size_t (*usable)(void *);
static _Atomic uint64_t live_marked;   /* marked blocks alive: the exit walk runs only when some are */
static struct hbt_touch_chunk bufs[HBT_MAX_THREADS + 1];

void rec_touch_init(uint64_t page_size, size_t (*usable_size)(void *))
{
    page = page_size;
    usable = usable_size;
    rec_touch_min = usable && page ? page : UINT64_MAX;
}

uint64_t rec_touch_born(void)
{
    atomic_fetch_add_explicit(&live_marked, 1, memory_order_relaxed);
    return REC_TOUCH_MARK;
}

/* The whole pages inside the block at p and how many are resident: 1, or 0 when it has none or
 * mincore fails. */
static int measure(void *p, uint64_t *pages, uint64_t *resident)
{
    uintptr_t a = (uintptr_t)p, start = (a + page - 1) & ~(uintptr_t)(page - 1);
    uintptr_t end = (a + usable(p)) & ~(uintptr_t)(page - 1);
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

/* Keeps the record of the object id (no mark) measured at p in buffer i, when not wholly resident. */
static void keep(unsigned i, void *p, uint64_t id)
{
    struct hbt_touch r = {.thread = (uint16_t)((id >> 48) & 0x7fff), .seq = id & ((1ull << 48) - 1)};
    if (!measure(p, &r.pages, &r.resident) || r.resident >= r.pages)
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

void rec_touch_note(struct rec_thread *t, void *p, uint64_t id)
{
    atomic_fetch_sub_explicit(&live_marked, 1, memory_order_relaxed);
    keep(rec_thread_no(t), p, id & ~REC_TOUCH_MARK);
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
    for (unsigned i = 0; i <= HBT_MAX_THREADS; i++)
        if (bufs[i].buf)
            hbt_touch_reset(&bufs[i]);
}

static void live_one(void *arg, uintptr_t addr, uint64_t *id)
{
    (void)arg;
    if (*id & REC_TOUCH_MARK)
        keep(EXIT_BUF, (void *)addr, *id & ~REC_TOUCH_MARK);
}

void rec_touch_exit(int alone)
{
    if (alone && atomic_load(&live_marked) > 0)
        obj_map_each(live_one, NULL);
    rec_touch_close(EXIT_BUF);
}
