/* objtab.h - a table of one 16-byte entry per object of a trace, indexed by the object's global
 * index (hbt_event.prod / .ref), whose memory follows the live objects, not the trace's length:
 * what the replayer keeps each object's pointer and size in, and the statistics' pass each
 * object's size, state and birth time.
 * Always holds: the entries are one MAP_NORESERVE mapping (a page costs memory only once
 * written); each object is consumed at most once (the reader's checks), and the consumer that
 * completes a page (every entry in it consumed) returns that page to the kernel at once, so the
 * table's resident memory is the pages that hold an object not yet consumed, plus 4 bytes of
 * counter per page of entries; an entry of a returned page reads as zero. */
#ifndef HEAPBENCH_OBJTAB_H
#define HEAPBENCH_OBJTAB_H

#include <stdatomic.h>
#include <stdint.h>

struct obj_entry {
    _Atomic uint64_t a;  /* the replayer: the pointer (published with a release store); stats: state | size */
    uint64_t b;          /* the replayer: the requested size; stats: the birth time */
};

struct objtab {
    struct obj_entry *e;
    _Atomic uint32_t *done;  /* per page of entries: how many of its objects were consumed */
    uint64_t n, npages, per_page;
};

/* The pages of entries a table for n objects has (a bitmap over them takes (pages + 7) / 8 bytes). */
uint64_t objtab_npages(uint64_t n);
/* A table for n objects, every entry zero. 0, or -1 when the memory is refused. */
int objtab_init(struct objtab *t, uint64_t n);
/* Every entry zero again, every page returned. */
void objtab_reset(struct objtab *t);
void objtab_free(struct objtab *t);
/* Object i has been consumed (its entry's last use); the page goes back to the kernel when that completes it. */
void objtab_consumed(struct objtab *t, uint64_t i);
/* True when every object of page p has been consumed (its entries read as zero). */
int objtab_page_gone(const struct objtab *t, uint64_t p);
/* Makes the pages whose bit is set in map resident now (their entries stay zero). */
void objtab_fault(struct objtab *t, const uint8_t *map);

#endif
