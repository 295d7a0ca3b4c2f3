/* shardlist.h - `heapbench run --list-shard i/N`: the cells a shard would run, without running them.
 *
 * Always holds: the cells listed are exactly those hb_engine_run() visits for the same options
 * (hb_matrix_in_shard() decides both), in the matrix's group order, allocators in registry order.
 */
#ifndef HEAPBENCH_SHARDLIST_H
#define HEAPBENCH_SHARDLIST_H

#include <stdio.h>

#include "plan/matrix.h"

/* Prints a tab-separated header and one line per cell of m's shard to out; returns 0. */
int hb_shardlist_print(const struct hb_matrix *m, FILE *out);

#endif
