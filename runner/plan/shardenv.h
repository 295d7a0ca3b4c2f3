/* shardenv.h - the shard of this task, read from a scheduler's environment when --shard is not given.
 *
 * Always holds: a shard read here satisfies 1 <= i <= n; an environment that names a shard but
 * cannot be read as one (not a number, index out of range, a Slurm array with a step) is an
 * error, never silently "the whole matrix"; without any of the variables the result is 1/1.
 * The variables, first match wins:
 *   SLURM_ARRAY_TASK_ID with SLURM_ARRAY_TASK_MIN/MAX (i = ID-MIN+1, N = MAX-MIN+1) or, without
 *     MIN, SLURM_ARRAY_TASK_COUNT (ID taken 1-based, as --array=1-N gives); with --shards N the ID
 *     itself is the shard (1-based), so a task re-submitted alone (--array=k) keeps shard k of N;
 *   JOB_COMPLETION_INDEX (Kubernetes Indexed Job, 0-based) with an explicit N (--shards N);
 *   TEST_SHARD_INDEX (0-based) with TEST_TOTAL_SHARDS (Bazel's test sharding).
 * An explicit N (--shards N) overrides the count the scheduler gives.
 */
#ifndef HEAPBENCH_SHARDENV_H
#define HEAPBENCH_SHARDENV_H

#include <stddef.h>

/* Reads the shard from the environment. explicit_n is --shards N (0 when not given).
 * Returns 0 and sets *i, *n and *source (the index variable's name, or NULL when no variable is
 * set and the shard is 1/1); returns -1 with a one-line reason in err when the variables are
 * set but unusable. */
int hb_shard_from_env(int explicit_n, int *i, int *n, const char **source, char *err, size_t errlen);

#endif
