/* obj_map.h - the recorder's address -> object map: which recorded object lives at an address.
 * Always holds: lock-free (CAS on a slot's key, open addressing with linear probing over one
 * mmap'd table, tombstones reused by later inserts); an address is in the map at most once,
 * because the recorder takes it out before the real free/realloc can hand it out again; a put
 * or take looks at no more than OBJ_MAP_PROBES slots (a full neighbourhood makes put fail and
 * the object's later free an unknown reference, never a wrong one). */
#ifndef HEAPBENCH_OBJ_MAP_H
#define HEAPBENCH_OBJ_MAP_H

#include <stdint.h>

#define OBJ_MAP_PROBES 4096

/* Maps the table: slots from the text (a power of two, e.g. HEAPBENCH_RECORD_SLOTS), default
 * 2^21. Returns 0, or -1 when it cannot be mapped. */
int obj_map_init(const char *slots);
/* Records that addr holds object id of size bytes. 0 when no slot was found. */
int obj_map_put(uintptr_t addr, uint64_t id, uint64_t size);
/* Takes addr out: its id and size. 0 when addr is not in the map. */
int obj_map_take(uintptr_t addr, uint64_t *id, uint64_t *size);
/* Calls fn on every live entry, which may change its id. Only while no other thread runs
 * (a fork child). */
void obj_map_each(void (*fn)(void *arg, uint64_t *id, uint64_t size), void *arg);

#endif
