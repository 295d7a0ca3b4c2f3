/* map_table.h - the recorder's table of the program's own mappings: which recorded mapping
 * object (thread, seq) starts at an address, and its length.
 * Always holds: entries never overlap (they are mappings the kernel gave out and has not taken
 * back); lengths are whole pages; the table lives in mmap'd memory (MAP_NORESERVE) and holds
 * at most MAP_TABLE_MAX entries; every call takes one spin lock, only on the mapping calls
 * (system calls far slower than it), never on the malloc API's path. */
#ifndef HEAPBENCH_MAP_TABLE_H
#define HEAPBENCH_MAP_TABLE_H

#include <stdint.h>

#define MAP_TABLE_MAX 65536u

/* One recorded mapping. */
struct map_entry {
    uintptr_t addr;
    uint64_t len, id;
};

/* Maps the table. 0, or -1 when it cannot be mapped. */
int map_table_init(void);
/* Records a mapping of len bytes (rounded up to pages of page bytes) at addr. 0 when the
 * table is full (the mapping stays unrecorded). */
int map_table_put(uintptr_t addr, uint64_t len, uint64_t page, uint64_t id);
/* What unmapping [addr, addr + len) does to the recorded mappings: takes out every mapping
 * that lies wholly inside it into out[] (at most cap: any more stay, counted as partial),
 * returns how many, and sets *partial to the number of recorded mappings it cuts only part of
 * (they stay whole in the table: the replay cannot follow a partial unmap). */
unsigned map_table_cut(uintptr_t addr, uint64_t len, uint64_t page, struct map_entry *out, unsigned cap, unsigned *partial);
/* Around fork (pthread_atfork): hold takes the lock in the parent before the fork, release
 * gives it back in the parent and in the child, so the child never inherits it held. */
void map_table_fork_hold(void);
void map_table_fork_release(void);
/* Calls fn on every entry, which may change its id. Only while no other thread runs (a fork child). */
void map_table_each(void (*fn)(void *arg, struct map_entry *e), void *arg);

#endif
