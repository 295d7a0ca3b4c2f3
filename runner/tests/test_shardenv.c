/* test_shardenv.c - unit tests of the shard read from a scheduler's environment (plan/shardenv.c),
 * its record in the options (plan/options.c) and the shard rule's stability (plan/matrix.c).
 * Always holds: every case sets exactly the variables it names and clears them afterwards.
 */
#include <stdlib.h>
#include <string.h>

#include "plan/matrix.h"
#include "plan/options.h"
#include "plan/shardenv.h"
#include "tcheck.h"

static const char *const all_vars[] = {"SLURM_ARRAY_TASK_ID", "SLURM_ARRAY_TASK_MIN", "SLURM_ARRAY_TASK_MAX",
                                       "SLURM_ARRAY_TASK_COUNT", "JOB_COMPLETION_INDEX", "TEST_SHARD_INDEX",
                                       "TEST_TOTAL_SHARDS"};

/* Clears every variable, then sets the NAME=VALUE pairs of a NULL-terminated list. */
static void env(const char *const *pairs)
{
    for (size_t i = 0; i < sizeof all_vars / sizeof *all_vars; i++)
        unsetenv(all_vars[i]);
    for (; pairs && *pairs; pairs++) {
        char *copy = strdup(*pairs), *eq = strchr(copy, '=');
        *eq = '\0';
        setenv(copy, eq + 1, 1);
        free(copy);
    }
}

/* 1 when the environment gives shard want_i/want_n from variable want_src (with --shards explicit_n). */
static int gives(const char *const *pairs, int explicit_n, int want_i, int want_n, const char *want_src)
{
    int i, n;
    const char *src;
    char err[256];
    env(pairs);
    int ok = hb_shard_from_env(explicit_n, &i, &n, &src, err, sizeof err) == 0 && i == want_i && n == want_n &&
             (want_src ? src && strcmp(src, want_src) == 0 : !src);
    env(NULL);
    return ok;
}

/* 1 when the environment is refused with an error message that contains word. */
static int refused(const char *const *pairs, int explicit_n, const char *word)
{
    int i, n;
    const char *src;
    char err[256] = "";
    env(pairs);
    int ok = hb_shard_from_env(explicit_n, &i, &n, &src, err, sizeof err) != 0 && strstr(err, word);
    env(NULL);
    return ok;
}

/* Every scheduler's variables, and what is refused. */
static void test_env(void)
{
    TCHECK("no variable: 1/1, no source", gives(NULL, 0, 1, 1, NULL));
    TCHECK("slurm --array=1-3, task 2", gives((const char *[]){"SLURM_ARRAY_TASK_ID=2", "SLURM_ARRAY_TASK_MIN=1",
                                               "SLURM_ARRAY_TASK_MAX=3", "SLURM_ARRAY_TASK_COUNT=3", NULL},
                                               0, 2, 3, "SLURM_ARRAY_TASK_ID"));
    TCHECK("slurm --array=0-2, task 0 is shard 1", gives((const char *[]){"SLURM_ARRAY_TASK_ID=0",
                                                        "SLURM_ARRAY_TASK_MIN=0", "SLURM_ARRAY_TASK_MAX=2", NULL},
                                                        0, 1, 3, "SLURM_ARRAY_TASK_ID"));
    TCHECK("slurm with COUNT only: ID 1-based", gives((const char *[]){"SLURM_ARRAY_TASK_ID=4",
                                                     "SLURM_ARRAY_TASK_COUNT=4", NULL}, 0, 4, 4, "SLURM_ARRAY_TASK_ID"));
    TCHECK("slurm array with a step refused", refused((const char *[]){"SLURM_ARRAY_TASK_ID=3", "SLURM_ARRAY_TASK_MIN=1",
                                                     "SLURM_ARRAY_TASK_MAX=5", "SLURM_ARRAY_TASK_COUNT=3", NULL},
                                                     0, "step"));
    TCHECK("slurm task re-submitted alone with --shards N keeps its shard",
           gives((const char *[]){"SLURM_ARRAY_TASK_ID=2", "SLURM_ARRAY_TASK_MIN=2", "SLURM_ARRAY_TASK_MAX=2",
                                  "SLURM_ARRAY_TASK_COUNT=1", NULL}, 3, 2, 3, "SLURM_ARRAY_TASK_ID"));
    TCHECK("slurm ID alone refused", refused((const char *[]){"SLURM_ARRAY_TASK_ID=1", NULL}, 0, "COUNT"));
    TCHECK("slurm ID not a number refused", refused((const char *[]){"SLURM_ARRAY_TASK_ID=x",
                                                   "SLURM_ARRAY_TASK_COUNT=2", NULL}, 0, "whole numbers"));
    TCHECK("kubernetes index 0-based with --shards", gives((const char *[]){"JOB_COMPLETION_INDEX=2", NULL}, 3, 3, 3,
                                                          "JOB_COMPLETION_INDEX"));
    TCHECK("kubernetes index without --shards refused", refused((const char *[]){"JOB_COMPLETION_INDEX=0", NULL}, 0,
                                                               "--shards"));
    TCHECK("kubernetes index beyond N refused", refused((const char *[]){"JOB_COMPLETION_INDEX=3", NULL}, 3, "not 1..3"));
    TCHECK("bazel-style TEST_SHARD_INDEX/TEST_TOTAL_SHARDS", gives((const char *[]){"TEST_SHARD_INDEX=0",
                                                                   "TEST_TOTAL_SHARDS=2", NULL}, 0, 1, 2,
                                                                   "TEST_SHARD_INDEX"));
    TCHECK("--shards without an index refused", refused(NULL, 4, "no shard index"));
}

/* Parses a NULL-terminated literal argv into o. */
static void parse(struct hb_options *o, char **argv)
{
    int argc = 0;
    while (argv[argc])
        argc++;
    hb_options_parse(o, HB_CMD_RUN, argc, argv);
}

/* The options: --shard wins; a shard from the environment is recorded and kept in argv. */
static void test_options(void)
{
    struct hb_options o;
    env((const char *[]){"TEST_SHARD_INDEX=1", "TEST_TOTAL_SHARDS=3", NULL});
    parse(&o, (char *[]){"run", "--quick", NULL});
    TCHECK("run takes the shard from the environment", o.shard_i == 2 && o.shard_n == 3 &&
                                                            strcmp(o.shard_source, "TEST_SHARD_INDEX") == 0);
    TCHECK("that shard is kept in argv for meta.json and --resume",
           strcmp(o.argv.v[o.argv.n - 1], "--shard=2/3") == 0);
    hb_options_free(&o);
    parse(&o, (char *[]){"run", "--shard", "1/2", NULL});
    TCHECK("--shard wins over the environment", o.shard_i == 1 && o.shard_n == 2 &&
                                                     strcmp(o.shard_source, "--shard") == 0 && o.argv.n == 3);
    hb_options_free(&o);
    parse(&o, (char *[]){"run", "--resume", "somewhere", NULL});
    TCHECK("--resume does not read the environment (the stored argv has the shard)", !o.shard_source && o.shard_n == 1);
    hb_options_free(&o);
    parse(&o, (char *[]){"run", "--list-shard", "3/4", NULL});
    TCHECK("--list-shard i/N sets the shard and lists", o.list_shard && o.shard_i == 3 && o.shard_n == 4);
    hb_options_free(&o);
    env(NULL);
}

/* The rule g % N == i-1 depends on the groups only: adding an allocator moves no group. */
static void test_stable(void)
{
    static const char registry_text[] = "glibc | - | libc6 | glibc | glibc | default\n"
                                        "other | /bin/sh | pkg | dpkg:pkg | none | default\n";
    static const char list_text[] = "multi | 1,2,4 | --a=1; --a=2 | --a=0 | m\nsingle | - | | | s\n";
    struct hb_registry reg = {0};
    struct hb_worklist wl = {0};
    char err[256];
    hb_registry_parse(&reg, registry_text, err, sizeof err);
    hb_worklist_parse(&wl, list_text, err, sizeof err);
    struct hb_options o1, o2;
    struct hb_matrix m1, m2;
    parse(&o1, (char *[]){"run", "--shard", "2/3", "-a", "glibc", NULL});
    parse(&o2, (char *[]){"run", "--shard", "2/3", "-a", "other,glibc", NULL});
    hb_matrix_build(&m1, &o1, &wl, &reg);
    hb_matrix_build(&m2, &o2, &wl, &reg);
    int same = m1.ng == m2.ng && m1.ng == 7, members = 0;
    for (size_t g = 0; g < m1.ng && same; g++) {
        same = hb_matrix_in_shard(&m1, g) == hb_matrix_in_shard(&m2, g) && m1.g[g].threads == m2.g[g].threads &&
               strcmp(m1.g[g].params, m2.g[g].params) == 0;
        members += hb_matrix_in_shard(&m1, g);
    }
    TCHECK("a shard holds the same groups whatever the allocator list", same && members == 2);
    hb_matrix_free(&m1), hb_matrix_free(&m2);
    hb_options_free(&o1), hb_options_free(&o2);
    hb_registry_free(&reg), hb_worklist_free(&wl);
}

/* Runs every check above; the exit status says whether one failed. */
int main(void)
{
    test_env();
    test_options();
    test_stable();
    return tcheck_summary();
}
