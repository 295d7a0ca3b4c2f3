/* conv_sites.h - the post-pass's call sites (hbconvert.c): the raw RAW_X_FRAME records of each thread
 * into trace format 5's site chunks (trace.h): a table of distinct stacks, each object's site as runs
 * of one thread's consecutive objects, and the recorded process's mappings (NAME.hbr.maps).
 * Always holds: identical stacks get one id (ids count from 1 in order of first use); an object
 * gets the site of its thread's last stack before it; a lone frame (the call site alone, recorded
 * when a thread's site changes) stands for the last whole stack seen whose innermost frame it is,
 * or for itself when no whole stack starts there (at the end, the last whole stack that starts there
 * when one came later: two ids may then name one stack); nothing is written for a trace without frames. */
#ifndef HEAPBENCH_CONV_SITES_H
#define HEAPBENCH_CONV_SITES_H

#include "addr_table.h"
#include "trace.h"

struct conv_stack {
    uint32_t n;
    uint64_t f[HBT_SITE_FRAMES];
};

struct conv_run {
    uint64_t seq, count;       /* the thread's run of objects being built: first seq, how many (0: none) */
    uint32_t site;
};

struct conv_sites {
    int fd;                    /* the trace being written */
    struct hbt_site_chunk c;   /* buf NULL until the first record */
    struct addr_table by_hash; /* stack hash -> id */
    struct addr_table by_pc;   /* innermost frame -> id of the last whole stack starting there */
    struct conv_stack *stacks; /* stacks[id - 1] */
    uint32_t nstacks, cap;
    uint32_t *cur;             /* per thread: its current site (0: none yet) */
    struct conv_stack *pending; /* per thread: the stack being read */
    struct conv_run *runs;     /* per thread */
    uint32_t nthreads;
};

/* For a trace of nthreads threads written to fd. 0, or -1 when out of memory. */
int conv_sites_init(struct conv_sites *s, uint32_t nthreads, int fd);
void conv_sites_free(struct conv_sites *s);
/* One RAW_X_FRAME record of thread (its count word: raw_frame_word). 0, or -1 (a write failed, out of memory, or a
 * malformed record: errno EINVAL). */
int conv_sites_frame(struct conv_sites *s, uint16_t thread, uint64_t pc, uint64_t word);
/* Thread made its object seq (a malloc-API call) now. 0, or -1 (a write failed, out of memory). */
int conv_sites_made(struct conv_sites *s, uint16_t thread, uint64_t seq);
/* The last runs, the stack table and the mappings' text (the file maps, when it exists), written. 0, or -1 (errno set). */
int conv_sites_finish(struct conv_sites *s, const char *maps);

#endif
