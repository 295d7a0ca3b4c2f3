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
