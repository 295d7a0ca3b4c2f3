/* oa_table.h - the one probing core of replay/'s open-addressing tables (the recorder's live large
 * blocks, record/record_touch.c; the replayer's touch records, replayer/touch_table.h; the post-pass's
 * address table, trace/addr_table.h): the hash, the probe and the deletion, as inline helpers over an
 * owner's array of slots, so that each owner keeps its own slot layout, size bound and locking and
 * the compiler specialises the helpers to it (the recorder's path stays as short as its own loop).
 * Always holds: a slot's first 8 bytes are its key, and key 0 marks an empty slot; the slot count is a
 * power of two (mask = count - 1); probing is linear; an owner never fills its table (at most 3/4
 * full), so every probe ends at its key or at an empty slot; deletion shifts the rest of the run back
 * (no tombstones), so every present key stays reachable from its home without crossing an empty slot. */
#ifndef HEAPBENCH_OA_TABLE_H
#define HEAPBENCH_OA_TABLE_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

/* Fibonacci hashing: x times 2^64 / phi; an owner takes the product's top bits (by a shift). */
static inline uint64_t oa_mix(uint64_t x) { return x * 0x9e3779b97f4a7c15ull; }

/* The key of slot i of slots, slots of size bytes each. */
static inline uint64_t oa_key(const void *slots, size_t size, uint64_t i)
{
    uint64_t k;
    memcpy(&k, (const char *)slots + i * size, sizeof k);
    return k;
}

/* The slot holding key (not 0), or the empty slot where it would go, probing from home. */
static inline uint64_t oa_find(const void *slots, size_t size, uint64_t mask, uint64_t home, uint64_t key)
{
    uint64_t i = home & mask, k;
    while ((k = oa_key(slots, size, i)) != 0 && k != key)
        i = (i + 1) & mask;
    return i;
}

/* Empties the full slot i: each later slot of its run whose home (home(key) & mask) does not lie
 * cyclically between the hole and it moves into the hole, which moves on to it. */
static inline void oa_remove(void *slots, size_t size, uint64_t mask, uint64_t i, uint64_t (*home)(uint64_t key))
{
    char *s = slots;
    uint64_t k;
    for (uint64_t j = (i + 1) & mask; (k = oa_key(slots, size, j)) != 0; j = (j + 1) & mask) {
        uint64_t h = home(k) & mask;
        if (((j - h) & mask) >= ((j - i) & mask)) {
            memcpy(s + i * size, s + j * size, size);
            i = j;
        }
    }
    memset(s + i * size, 0, sizeof k);
}

#endif
