/* shardenv.c - the shard of this task from a scheduler's environment (see shardenv.h).
 *
 * Always holds: every variable is parsed as a whole decimal number or refused; nothing here
 * writes to the environment.
 */
#include "plan/shardenv.h"

#include <stdio.h>
#include <stdlib.h>

#include "base/util.h"

/* 1 and *v when variable name is set to a whole number; 0 when unset; -1 when set but not a number. */
static int hb_env_int(const char *name, int *v)
{
    const char *text = getenv(name);
    if (!text || !*text)
        return 0;
    return hb_parse_int(text, v) == 0 ? 1 : -1;
}

/* A Slurm array task: i and N from SLURM_ARRAY_TASK_{ID,MIN,MAX,COUNT}. */
static int hb_shard_slurm(int explicit_n, int *i, int *n, char *err, size_t errlen)
{
    int id, min = 0, max = 0, count = 0;
    int has_min = hb_env_int("SLURM_ARRAY_TASK_MIN", &min), has_max = hb_env_int("SLURM_ARRAY_TASK_MAX", &max);
    int has_count = hb_env_int("SLURM_ARRAY_TASK_COUNT", &count);
    if (hb_env_int("SLURM_ARRAY_TASK_ID", &id) < 0 || has_min < 0 || has_max < 0 || has_count < 0) {
        snprintf(err, errlen, "SLURM_ARRAY_TASK_ID/MIN/MAX/COUNT are not whole numbers");
        return -1;
    }
    if (explicit_n) {
        *i = id; /* --shards N: the task ID is the shard (--array=1-N), also in a task re-submitted alone */
    } else if (has_min && has_max) {
        if (has_count && count != max - min + 1) {
            snprintf(err, errlen, "the Slurm array %d-%d has %d tasks, not %d: an array with a step or gaps "
                     "cannot be a shard list; submit with --array=1-N", min, max, count, max - min + 1);
            return -1;
        }
        *i = id - min + 1;
        *n = max - min + 1;
    } else if (has_count) {
        *i = id;
        *n = count;
    } else {
        snprintf(err, errlen, "SLURM_ARRAY_TASK_ID is set without SLURM_ARRAY_TASK_COUNT or MIN/MAX; give --shard i/N");
        return -1;
    }
    return 0;
}

/* A 0-based index variable with a count variable (or the explicit N). */
static int hb_shard_zero_based(const char *index_var, const char *count_var, int explicit_n, int *i, int *n,
                               char *err, size_t errlen)
{
    int idx, count = 0;
    int has_count = count_var ? hb_env_int(count_var, &count) : 0;
    if (hb_env_int(index_var, &idx) < 0 || has_count < 0) {
        snprintf(err, errlen, "%s or %s is not a whole number", index_var, count_var ? count_var : "--shards");
        return -1;
    }
    if (!has_count && !explicit_n) {
        snprintf(err, errlen, "%s is set but the number of shards is not known; give --shards N "
                 "(the Job's completions)", index_var);
        return -1;
    }
    *i = idx + 1;
    *n = count;
    return 0;
}

/* Reads the shard from the scheduler's environment. */
int hb_shard_from_env(int explicit_n, int *i, int *n, const char **source, char *err, size_t errlen)
{
    static const char *const vars[] = {"SLURM_ARRAY_TASK_ID", "JOB_COMPLETION_INDEX", "TEST_SHARD_INDEX"};
    int rc = 0, dummy;
    *i = *n = 1;
    *source = NULL;
    if (hb_env_int(vars[0], &dummy) != 0) {
        *source = vars[0];
        rc = hb_shard_slurm(explicit_n, i, n, err, errlen);
    } else if (hb_env_int(vars[1], &dummy) != 0) {
        *source = vars[1];
        rc = hb_shard_zero_based(vars[1], NULL, explicit_n, i, n, err, errlen);
    } else if (hb_env_int(vars[2], &dummy) != 0) {
        *source = vars[2];
        rc = hb_shard_zero_based(vars[2], "TEST_TOTAL_SHARDS", explicit_n, i, n, err, errlen);
    } else if (explicit_n) {
        snprintf(err, errlen, "--shards %d: no shard index in the environment (SLURM_ARRAY_TASK_ID, "
                 "JOB_COMPLETION_INDEX or TEST_SHARD_INDEX); give --shard i/N", explicit_n);
        return -1;
    }
    if (rc == 0 && explicit_n)
        *n = explicit_n;
    if (rc == 0 && (*n < 1 || *i < 1 || *i > *n)) {
        snprintf(err, errlen, "%s gives shard %d of %d, which is not 1..%d", *source, *i, *n, *n);
        return -1;
    }
    return rc;
}
