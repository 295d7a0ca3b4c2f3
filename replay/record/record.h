/* record.h - what the recorder's core (record.c: threads, chunks, the malloc API) gives its
 * mapping hooks (record_map.c: the program's own mmap, munmap, mremap), inside libhbrecord.so.
 * Always holds: rec_enter returns NULL (record nothing, pass the call through) while the
 * calling thread is inside the recorder or inside a recorded malloc-API call, or when
 * recording is off; otherwise the thread holds its recorder until rec_leave. */
#ifndef HEAPBENCH_RECORD_H
#define HEAPBENCH_RECORD_H

#include "trace.h"

struct rec_thread;

/* Takes the calling thread's recorder for one event; NULL: do not record. */
struct rec_thread *rec_enter(void);
/* Gives it back. */
void rec_leave(struct rec_thread *t);
/* An object's id in the recorder's tables: its thread and its seq in that thread's stream. */
static inline uint64_t rec_id(uint16_t thread, uint64_t seq) { return ((uint64_t)thread << 48) | seq; }
/* Makes e consume the object of id (the inverse of rec_id). */
static inline void rec_ref(struct hbt_event *e, uint64_t id)
{
    e->ref_thread = (uint16_t)(id >> 48);
    e->ref_seq = id & ((1ull << 48) - 1);
}
/* Appends e (its time is taken here) to t's chunk; returns the object id (rec_id) it produced,
 * or HBT_NONE. */
uint64_t rec_put(struct rec_thread *t, struct hbt_event *e);
/* rec_put of an event whose object lies at addr (an mmap's product, an munmap's mapping): in raw
 * mode the post-pass names it by its address, so the id returned is only "not HBT_NONE". */
uint64_t rec_put_at(struct rec_thread *t, struct hbt_event *e, uintptr_t addr);
/* 1 in raw mode (HEAPBENCH_RECORD_RAW=1): objects are named by address after the program exits, so
 * an event that ends an object is recorded before the call that frees its place. */
int rec_raw(void);
/* The thread number events of t carry. */
uint16_t rec_thread_no(const struct rec_thread *t);
/* Bytes per page. */
uint64_t rec_page_size(void);

/* Writes one sealed chunk (of any kind) to the trace, opening it first if needed: 0, or -1 when
 * it cannot (the trace is then cut: write failures are reported once). The caller holds its thread. */
int rec_write(const uint8_t *buf, size_t len);

/* record_touch.c, called by the core: how many of a large block's whole pages the program made
 * resident (mincore(2) when it ends, or at a normal exit for the blocks still live), written in
 * touch chunks (trace.h, format 4). A block of at least 128 KiB (record_touch.c's TOUCH_FLOOR) carries REC_TOUCH_MARK in its id
 * in the address map, so that its end is measured; smaller blocks cost one compare when made and
 * one sign test when they end. */
#define REC_TOUCH_MARK (1ull << 63)
#define REC_TOUCH_MIN 4096u /* below it no block is measured: one compare with a constant per new block */
/* The id to map for the new block p of size bytes (>= REC_TOUCH_MIN) whose id is id: id with
 * REC_TOUCH_MARK when the block is at least TOUCH_FLOOR and measuring is on (the block is then also
 * kept in the table of live large blocks, for the exit's measure). */
__attribute__((noinline, cold)) uint64_t rec_touch_born(void *p, uint64_t size, uint64_t id);
static inline uint64_t rec_touch_mark(void *p, uint64_t size, uint64_t id)
{
    return __builtin_expect(size >= REC_TOUCH_MIN, 0) ? rec_touch_born(p, size, id) : id;
}
/* Measures the marked block at p (id: its id with the mark), keeps a record when not every whole
 * page of it is resident (in t's touch chunk) and returns the id without its mark. Out of line
 * (its buffers are not the hot path's). */
__attribute__((noinline, cold)) uint64_t rec_touch_note(struct rec_thread *t, void *p, uint64_t id);
/* The id of the block at p being consumed (free, realloc), without its mark (measured when marked):
 * one sign test for an unmarked block. */
static inline uint64_t rec_touch_take(struct rec_thread *t, void *p, uint64_t id)
{
    if (__builtin_expect((int64_t)id < 0, 0)) /* REC_TOUCH_MARK is the sign bit */
        return rec_touch_note(t, p, id);
    return id;
}
/* Raw mode (rawtrace.h): the process holds no ids (the post-pass names objects by address), so the
 * table of live large blocks, keyed by address, is what says a block is large when it ends; a
 * filter over it keeps a small block's end at one load and one test. */
#define REC_TOUCH_FILTER_BITS 20
/* Per 4 KiB of address (its low 32 bits: 2^20 slots, 1 MiB, resident only where written): how
 * many live large blocks of the table start there (saturating at 255: then never 0 again).
 * Changed under the table's lock, read without it. */
extern uint8_t rec_touch_filter[1u << REC_TOUCH_FILTER_BITS];
static inline uint32_t rec_touch_slot(uintptr_t p) { return (uint32_t)p >> 12; }
static inline int rec_touch_maybe(const void *p) { return rec_touch_filter[rec_touch_slot((uintptr_t)p)]; }
/* The new block p of size bytes enters the table of live large blocks (when at least TOUCH_FLOOR). */
__attribute__((noinline, cold)) void rec_touch_raw_born(void *p, uint64_t size);
static inline void rec_touch_raw_mark(void *p, uint64_t size)
{
    if (__builtin_expect(size >= REC_TOUCH_MIN, 0))
        rec_touch_raw_born(p, size);
}
/* The block at p is about to end (free, realloc: before the real call): when the table holds it,
 * it leaves the table, is measured, and its raw touch record (rec_raw_touch) is written when not
 * wholly resident. */
__attribute__((noinline, cold)) void rec_touch_raw_end(void *p);
static inline void rec_touch_raw_take(void *p)
{
    if (__builtin_expect(rec_touch_maybe(p), 0))
        rec_touch_raw_end(p);
}
/* record.c, raw mode: appends the touch measure of the block at addr (RAW_X_TOUCH) to the calling
 * thread's raw block (the caller holds its recorder: tls.busy). */
void rec_raw_touch(uintptr_t addr, uint64_t pages, uint64_t resident);
/* Sets the page size and the allocator's malloc_usable_size (NULL: nothing is measured). */
void rec_touch_init(uint64_t page, size_t (*usable)(void *));
/* Writes thread's touch chunk and releases its buffer (the thread is closing; the caller holds it). */
void rec_touch_close(uint16_t thread);
/* In a fork child: the records not yet written are the parent's; dropped. */
void rec_touch_fork(void);
/* In a fork child, the inherited block at addr (old id: its mapped id) renamed seq: its new mapped id. */
uint64_t rec_touch_renamed(uintptr_t addr, uint64_t old, uint64_t seq);
/* At a normal exit, after every thread closed: measures every large block still live and writes
 * the records (raw mode: as a RAW_BLOCK_TOUCH block of addresses, which the post-pass names). */
void rec_touch_exit(void);

/* record_site.c, called by the core (raw mode): the call sites of allocating calls (trace format 5's
 * site chunks, made by the post-pass from the RAW_X_FRAME records). HEAPBENCH_RECORD_SITES says
 * how much: "none", "one" (the caller of each allocating call: one frame, recorded when it differs
 * from the thread's previous one), "sample" (the default: one frame for every allocation and the
 * whole stack, up to HBT_SITE_FRAMES frames, for the first allocation of each caller, one allocation
 * in REC_SITE_EVERY and every block of REC_SITE_BIG bytes or more), "all" (the whole stack of every
 * allocation). A whole stack costs ~6,800 instructions (backtrace's DWARF unwinding), so the sample
 * is sparse: ~27 instructions per allocation at 1 in 256. */
#define REC_SITE_EVERY 256u
#define REC_SITE_BIG (64u << 10)
enum rec_sites { REC_SITES_NONE, REC_SITES_ONE, REC_SITES_SAMPLE, REC_SITES_ALL };
/* Reads HEAPBENCH_RECORD_SITES (and loads the unwinder outside any malloc). The mode, or -1 after
 * saying on stderr that the value is unknown. */
int rec_site_init(void);
/* The countdown to the next whole stack after one (UINT32_MAX when no stacks are taken). */
uint32_t rec_site_every(void);
/* Sample mode: whether a whole stack at the caller pc was already taken in this process; marks it
 * taken (a table of callers by hash: a collision or a race between threads only takes one again). */
int rec_site_seen(uintptr_t pc);
/* The whole stack of the allocating call whose caller is pc (its frames, up to HBT_SITE_FRAMES, from
 * pc outwards), as RAW_X_FRAME records; one frame (pc) when the unwinder does not reach pc. */
__attribute__((noinline, cold)) void rec_site_stack(uintptr_t pc);
/* record.c: appends one RAW_X_FRAME record to the calling thread's raw block (the caller holds it). */
void rec_raw_frame(uintptr_t pc, unsigned index, unsigned frames);
/* At a normal exit: copies /proc/self/maps beside the raw file (NAME.hbr.maps), for the post-pass to
 * symbolize the frames from. dir/name: the raw file's. */
void rec_site_maps(const char *dir, const char *name);

/* record_map.c, called by the core: */
/* Sets up the mapping hooks (the real functions, the table, the code range of the allocator
 * whose malloc is alloc_fn: its own mapping calls are never the program's). 0, or -1. */
int rec_map_init(void *alloc_fn);
/* In a fork child, on its thread 0: one mmap event per recorded mapping it inherited (of its
 * page-rounded length; none when t is NULL: raw mode, where the post-pass makes them); the
 * child's counts start at 0. */
void rec_map_inherit(struct rec_thread *t);
/* The header's counts: partial unmaps not recorded, mappings not recorded (table full). */
void rec_map_counts(uint64_t *partial_unmaps, uint64_t *lost_maps);

#endif
