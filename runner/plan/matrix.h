/* matrix.h - the benchmark matrix: cells, their execution order, run numbers, shards, resume.
 *
 * A group is workload x params x threads x env; a cell is a group x an allocator. The order
 * is rounds (warm-up rounds, then reps 1..N); each round visits every group and, within a
 * group, every allocator in turn (A B C A B C ...), so drift hits all allocators alike; with
 * --alternate every even round visits the groups in reverse order (hb_matrix_group_at), so that
 * no group always runs first or always after another (run numbers keep the formula below).
 * Always holds: run numbers are those of the full matrix (1-based, unique, the execution
 * order), whatever the shard or resume: run = ((rep-1)*ngroups + g)*nalloc + a + 1.
 */
#ifndef HEAPBENCH_MATRIX_H
#define HEAPBENCH_MATRIX_H

#include <stddef.h>

#include "plan/options.h"
#include "plan/registry.h"
#include "plan/worklist.h"

struct hb_group {
    struct hb_workload *wl;
    int threads;        /* the threads column (1 for single-threaded) */
    int pass_threads;   /* 1: the workload gets --threads=N */
    const char *params; /* owned by the workload or the options */
    const char *env;    /* owned by the matrix */
};

struct hb_matrix {
    struct hb_group *g;
    size_t ng;
    struct hb_alloc **alloc;
    size_t nalloc;
    int reps, warmup, quick;
    int alternate;            /* --alternate: even rounds visit the groups last to first */
    int shard_i, shard_n;
    struct hb_strv envs;      /* the environment sets (axis values) */
    struct hb_strv workloads; /* names of the chosen workloads, in order */
    unsigned char *done;      /* per (rep, group, allocator): row already in runs.csv */
};

/* Builds the matrix that options o ask for from the workloads and allocators known.
 * Exits 2 naming the valid names for an unknown workload or allocator, or for a
 * malformed environment set. */
void hb_matrix_build(struct hb_matrix *m, const struct hb_options *o, struct hb_worklist *wl,
                     struct hb_registry *reg);

/* Run number of (rep 1..N, group, allocator). */
size_t hb_matrix_run(const struct hb_matrix *m, int rep, size_t g, size_t a);

/* 1 when group g belongs to this shard (g % N == i-1). */
int hb_matrix_in_shard(const struct hb_matrix *m, size_t g);

/* The done flag of (rep, g, a). */
unsigned char *hb_matrix_done(const struct hb_matrix *m, int rep, size_t g, size_t a);

/* Marks the cell of a runs.csv row done and sets *g, *a to it. Returns 0, or -1 when the row
 * matches no cell of this matrix (a results directory of another matrix). */
int hb_matrix_mark(struct hb_matrix *m, const char *workload, const char *allocator, const char *threads,
                   const char *params, const char *env, const char *rep, size_t *g, size_t *a);

/* How many (rep, cell) pairs of this shard are not done yet. */
size_t hb_matrix_pending(const struct hb_matrix *m);

/* 1 when group g still has an undone measured rep in this shard (its warm-up is worth it). */
int hb_matrix_group_pending(const struct hb_matrix *m, size_t g);

void hb_matrix_free(struct hb_matrix *m);

/* The group visited k-th (0-based) in round (1-based, warm-ups counted). */
size_t hb_matrix_group_at(const struct hb_matrix *m, int round, size_t k);

#endif
