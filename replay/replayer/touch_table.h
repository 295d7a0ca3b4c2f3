/* touch_table.h - the replayer's table of the blocks the program did not wholly make resident
 * (the trace's touch records, trace.h format 4): object -> whole pages it made resident, so that
 * the replay writes as many pages of the block as the program did, not all of them.
 * Always holds: built once at load by reading the touch chunks alone (not the events), then only
 * read (any thread, no lock); its memory comes from mmap and is bounded whatever the trace's
 * length: at most TOUCH_TABLE_MAX records (16 MiB of slots), the records past it are counted
 * (dropped) and their blocks are written whole, as in a trace without records. */
#ifndef HEAPBENCH_TOUCH_TABLE_H
#define HEAPBENCH_TOUCH_TABLE_H

#include "common/oa_table.h"
#include "trace.h"

#define TOUCH_TABLE_SLOTS (1u << 20)                 /* the most slots: 16 bytes each */
#define TOUCH_TABLE_MAX (TOUCH_TABLE_SLOTS / 4 * 3)  /* the most records kept (a table at most 3/4 full) */
#define TOUCH_NO_RECORD UINT64_MAX                       /* no record: the block is written whole */

struct touch_slot {
    uint64_t key;              /* the object's global index + 1; 0: empty */
    uint64_t resident;         /* whole pages the program made resident */
};

struct touch_table {
    struct touch_slot *slots;
    uint64_t mask;             /* slots - 1 (a power of two), 0 when there are none */
    uint64_t n, dropped;       /* records kept; records past TOUCH_TABLE_MAX, not kept */
};

/* Builds the table of t's touch records (an empty one when it has none). 0, or -1 when out of
 * memory or a touch chunk cannot be read again. */
int touch_table_build(struct touch_table *tt, const struct hbt_trace *t);
void touch_table_free(struct touch_table *tt);

/* An object's key (its index + 1: never 0) and the key's home (common/oa_table.h's hash). */
static inline uint64_t touch_key(uint64_t obj) { return obj + 1; }
static inline uint64_t touch_home(uint64_t key) { return oa_mix(key) >> 32; }

/* The whole pages the program made resident in object obj's block, or TOUCH_NO_RECORD. */
static inline uint64_t touch_table_get(const struct touch_table *tt, uint64_t obj)
{
    if (!tt || !tt->mask)
        return TOUCH_NO_RECORD;
    uint64_t key = touch_key(obj);
    const struct touch_slot *s = &tt->slots[oa_find(tt->slots, sizeof *tt->slots, tt->mask, touch_home(key), key)];
    return s->key ? s->resident : TOUCH_NO_RECORD;
}

#endif
