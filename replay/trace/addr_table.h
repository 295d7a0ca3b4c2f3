/* addr_table.h - the post-pass's address -> value table (hbconvert.c): which object lives at an
 * address, or what size it has, while the raw events are walked in the process's global order.
 * Always holds: open addressing on the probing core of common/oa_table.h (linear probing,
 * backward-shift deletion), at most half full (it doubles), keys are never 0 (0 marks an empty slot). */
#ifndef HEAPBENCH_ADDR_TABLE_H
#define HEAPBENCH_ADDR_TABLE_H

#include <stddef.h>
#include <stdint.h>

struct addr_slot {
    uint64_t key, val;        /* key 0: empty */
};

struct addr_table {
    struct addr_slot *slots;
    size_t cap, n;            /* cap: a power of two */
};

/* 0, or -1 when out of memory. */
int addr_table_init(struct addr_table *t);
void addr_table_free(struct addr_table *t);
/* Sets key (not 0) to val. 0, or -1 when out of memory. */
int addr_table_put(struct addr_table *t, uint64_t key, uint64_t val);
/* Takes key out, giving its value. 0 when absent. */
int addr_table_take(struct addr_table *t, uint64_t key, uint64_t *val);
/* Its keys, ascending, into a new array of t->n (the caller frees it); NULL when out of memory. */
uint64_t *addr_table_sorted_keys(const struct addr_table *t);
/* The value of key into *val: 1, or 0 when absent. */
int addr_table_find(const struct addr_table *t, uint64_t key, uint64_t *val);
/* The value of key, which must be present. */
uint64_t addr_table_get(const struct addr_table *t, uint64_t key);

#endif
