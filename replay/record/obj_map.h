/* obj_map.h - the recorder's address -> object map: which recorded object lives at an address.
 * Always holds: a two-level radix over the address space (a top array of 2 MiB regions, one
 * lazily mapped leaf of 8-byte slots per region, one slot per 8-byte granule, the 16-byte
 * aligned ones in the leaf's first half), all from mmap with MAP_NORESERVE, so only the slots
 * of addresses in use cost memory (at most one leaf page per 4 KiB of heap, one per 8 KiB under
 * an allocator whose blocks are 16-byte aligned); no lock and no probing: an address is put by the thread that got it
 * from malloc and taken by the one that frees it, which the program itself orders; a leaf is
 * installed with one CAS. */
#ifndef HEAPBENCH_OBJ_MAP_H
#define HEAPBENCH_OBJ_MAP_H

#include <stdint.h>

/* Maps the top array. Returns 0, or -1 when it cannot be mapped. */
int obj_map_init(void);
/* Records that addr holds object id (id < 2^64 - 1). 0 when addr cannot be mapped (not
 * 8-byte aligned, out of range, or no memory for its leaf): its free is then unknown. */
int obj_map_put(uintptr_t addr, uint64_t id);
/* Takes addr out, giving its id. 0 when addr is not in the map. */
int obj_map_take(uintptr_t addr, uint64_t *id);
/* Calls fn on every entry, which may change its id. Only while no other thread runs (a fork child). */
void obj_map_each(void (*fn)(void *arg, uintptr_t addr, uint64_t *id), void *arg);

#endif
