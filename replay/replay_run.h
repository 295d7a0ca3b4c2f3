/* replay_run.h - performs a trace's events: one thread per recorded thread, each event's malloc-API
 * call on the allocator in this process (the preloaded one), the memory touched as asked.
 * Always holds: an event that frees or reallocs an object made by another thread waits until
 * that object exists (its slot is published with a release store, read with an acquire load),
 * and nothing else is ordered across threads; the replayer's own memory comes from mmap, so
 * the only calls the allocator sees are the trace's. */
#ifndef HEAPBENCH_REPLAY_RUN_H
#define HEAPBENCH_REPLAY_RUN_H

#include "trace.h"

/* none; one write per page; one write per page except calloc's blocks (left as the allocator's
 * calloc left them); every byte */
enum replay_touch { TOUCH_NONE, TOUCH_FIRST, TOUCH_NOCALLOC, TOUCH_ALL };

struct replay_opts {
    enum replay_touch touch;
    int recorded_speed;        /* 1: keep the recorded gaps between a thread's events */
    uint64_t page;             /* page size for TOUCH_FIRST and TOUCH_NOCALLOC */
};

/* What the replay did. */
struct replay_result {
    uint64_t ops;              /* events performed (failed recorded calls count, without a call) */
    uint64_t nulls;            /* calls that returned NULL although the recorded one did not */
    int64_t mapped;            /* bytes of the program's mappings still mapped at the end (mmap'd less munmap'd) */
    double seconds;            /* from the start of the threads to the last one's end */
};

/* Slot values besides real pointers. */
#define REPLAY_UNMADE ((void *)0)  /* not produced yet */
#define REPLAY_NULL ((void *)1)    /* produced, but the allocator returned NULL */
#define REPLAY_GONE ((void *)2)    /* consumed (freed or moved by realloc) */

/* A replay ready to run: every thread's events decoded into a flat array (16 bytes per event,
 * plus 8 for its time with --speed=recorded), so that the replay loop does no decoding. */
struct replay;

/* Prepares t's replay; slots (t->objects entries) holds every object's requested size (from
 * hbt_stats) and is zeroed by replay_run. 0, or -1 when out of memory. */
int replay_prepare(const struct hbt_trace *t, void **slots, const struct replay_opts *o, struct replay **out);
/* Runs it with slots zeroed first; leaves each slot holding its object's pointer, or one of
 * the values above. self: the self pass, which does everything but the allocator calls, the
 * touching and the sleeping of --speed=recorded (threads, order, object table, waits for other
 * threads' objects), so that its time is the replayer's own cost. Returns 0, or -1 when a
 * thread cannot be started. */
typedef void (*replay_sample_fn)(void *arg, double seconds, uint64_t live_bytes);
/* The recorded main thread (the first with events) replays on the calling thread, so that the
 * allocator sees its calls from the process's main thread, as in the program; the others on
 * threads of their own. sample (when not NULL and not self) is called from a sampler thread
 * every 10 ms or more while the replay runs, with the seconds since its start and its live
 * requested bytes; it must not call the allocator. */
int replay_run(const struct hbt_trace *t, struct replay *rp, void **slots, int self, replay_sample_fn sample, void *arg,
               struct replay_result *r);
/* Releases a prepared replay. */
void replay_free(const struct hbt_trace *t, struct replay *rp);

#endif
