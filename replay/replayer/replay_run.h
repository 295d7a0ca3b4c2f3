/* replay_run.h - performs a trace's events: one thread per recorded thread, each event's malloc-API
 * call on the allocator in this process (the preloaded one), the memory touched as asked, the
 * events decoded from the trace as they are performed (streamed: nothing per event is kept).
 * Always holds: an event that frees or reallocs an object made by another thread waits until
 * that object exists (its entry is published with a release store, read with an acquire load);
 * with the recorded order (the default, format 3) an event also waits until every event more
 * than `window` places before it in the program's global order has been performed, and until
 * every thread that started before it has started, and a thread is started only once every
 * thread that exited before it started has ended, so no more recorded threads are alive at
 * once than in the program; with --order=free nothing else is ordered across threads and
 * every thread starts at once; the replayer's own memory comes from mmap (the object table,
 * objring.h, holds only the live objects and is reused in place), so the only calls the
 * allocator sees are the trace's. */
#ifndef HEAPBENCH_REPLAY_RUN_H
#define HEAPBENCH_REPLAY_RUN_H

#include "touch_table.h"
#include "trace.h"

/* none; one write per page the program made resident (every page of a block without a touch
 * record); the same except calloc's blocks (left as the allocator's calloc left them); one write
 * per page of every block (the records ignored: the replayer before format 4); every byte */
enum replay_touch { TOUCH_NONE, TOUCH_FIRST, TOUCH_NOCALLOC, TOUCH_WHOLE, TOUCH_ALL };

struct replay_opts {
    enum replay_touch touch;
    int recorded_speed;        /* 1: keep the recorded gaps between a thread's events */
    int free_order;            /* 1: --order=free, each thread's own order only, every thread at once */
    uint64_t window;           /* events of the global order a thread may run ahead of another */
    uint64_t page;             /* page size for TOUCH_FIRST, TOUCH_NOCALLOC and TOUCH_WHOLE */
    const struct touch_table *touches; /* the trace's touch records (TOUCH_FIRST, TOUCH_NOCALLOC); NULL: none */
    uint64_t stop;             /* 0: every event; else the replay stops before the first event of order >= stop
                                * (the moment an explanation looks at: every earlier event performed, no later one) */
    int explaining;            /* 1: each replay thread notes its stack as the replayer's own memory (hbt_pages_note),
                                * which asks glibc (pthread_getattr_np: fopen, getline), so allocates through the
                                * preloaded allocator: only for an explanation, never in a measured replay */
};

/* What the replay did. */
struct replay_result {
    uint64_t ops;              /* events performed (failed recorded calls count, without a call) */
    uint64_t nulls;            /* calls that returned NULL although the recorded one did not */
    int64_t mapped;            /* bytes of the program's mappings still mapped at the end (mmap'd less munmap'd) */
    double seconds;            /* from the start of the threads to the last one's end */
    uint64_t threads_peak;     /* most recorded threads alive at once (started and not yet ended) */
    uint64_t grown;            /* times the replayer's own memory grew while replaying, since replay_prepare (its
                                * table of long-lived objects, or a thread's stack and cursor): 0 when it stayed as at load */
    uint64_t live_objects, live_bytes, unmade; /* at the end: objects made and not consumed (their
                                                * requested bytes, mappings included), objects never made */
};

struct replay;

/* Prepares t's replay (its threads, the object table, made resident for the trace's peak of
 * peak_objects live objects, and a stack and trace cursor for each of the threads_alive threads the
 * program ran at once (every thread with --order=free), made resident too, so that the replayer's
 * own memory is in its baseline, not in the allocator's heap). 0, or -1 when out of memory. */
int replay_prepare(const struct hbt_trace *t, const struct replay_opts *o, uint64_t peak_objects, uint64_t threads_alive,
                   struct replay **out);
/* Runs it, the object table emptied first. self: the self pass, which does everything but the
 * allocator calls, the touching and the sleeping of --speed=recorded (threads, decoding, order,
 * object table, waits for other threads' objects), so that its time is the replayer's own cost.
 * Returns 0, or -1 when a thread cannot be started. */
typedef void (*replay_sample_fn)(void *arg, double seconds, uint64_t live_bytes);
/* The recorded main thread (the first with events) replays on the calling thread, so that the
 * allocator sees its calls from the process's main thread, as in the program; the others on
 * threads of their own. sample (when not NULL and not self) is called from a sampler thread
 * every 10 ms or more while the replay runs, with the seconds since its start and its live
 * requested bytes; it must not call the allocator. */
int replay_run(struct replay *rp, int self, replay_sample_fn sample, void *arg, struct replay_result *r);
/* Calls fn for every object left live by the last replay_run (its global index, pointer and requested
 * size), with no replay running. */
void replay_each_live(struct replay *rp, void (*fn)(void *arg, uint64_t obj, uint64_t ptr, uint64_t size), void *arg);
/* Releases a prepared replay. */
void replay_free(struct replay *rp);

#endif
