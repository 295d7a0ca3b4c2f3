/* site_map.h - a trace's call sites (format 5's site chunks) as its readers use them: each object's
 * site id, the table of stacks, and the recorded process's mappings' text (for symbolize.h).
 * Always holds: of_obj has one entry per object of the trace (0: no site recorded), every id in it
 * names a stack of the table, and two ids of of_obj never name the same frames (ids of identical
 * stacks are folded into the first) (an id without a definition is refused at build); the memory comes
 * from mmap (hbt_pages), never from the allocator a replay measures. */
#ifndef HEAPBENCH_SITE_MAP_H
#define HEAPBENCH_SITE_MAP_H

#include "trace.h"

struct site_stack {
    uint32_t n;
    uint64_t f[HBT_SITE_FRAMES];
};

struct site_map {
    uint32_t *of_obj;          /* per object (global index): its site id, 0 none; NULL when the trace has no sites */
    uint64_t nobj;
    struct site_stack *stacks; /* stacks[id - 1] */
    uint32_t nsites;
    char *maps;                /* the mappings' text (NUL-terminated), NULL when not recorded */
    size_t maps_len;
    uint64_t objs_with_site;
    uint32_t stacks_room;      /* stacks' and maps' mapped room (stacks, bytes), for site_map_free */
    size_t maps_room;
};

/* Reads t's site chunks into m (an empty map for a trace before format 5 or recorded without sites).
 * 0, or -1 with a one-line reason in err. */
int site_map_build(struct site_map *m, const struct hbt_trace *t, char *err, size_t errlen);
void site_map_free(struct site_map *m);
/* The site of object obj (0: none). */
static inline uint32_t site_of(const struct site_map *m, uint64_t obj) { return m->of_obj && obj < m->nobj ? m->of_obj[obj] : 0; }
/* Why t has no call sites (one line, what to do), or NULL when it has some. */
const char *site_map_missing(const struct site_map *m, const struct hbt_trace *t);

#endif
