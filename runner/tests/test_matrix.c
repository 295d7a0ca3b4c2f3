/* test_matrix.c - unit tests of the registry and LIST parsers, option parsing and the matrix
 * (order, run numbers, shards, resume marks) - runner/plan/registry.c, worklist.c, options.c, matrix.c.
 * Always holds: expectations are derived from the inputs written here.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "plan/matrix.h"
#include "plan/options.h"
#include "plan/registry.h"
#include "tcheck.h"
#include "base/util.h"
#include "plan/worklist.h"

static const char registry_text[] =
    "# comment line\n"
    "glibc | - | libc6 | glibc | glibc | default\n"
    "real  | /nonexistent/a.so:/bin/sh | pkg-a | dpkg:pkg-a | none | default   # trailing comment\n"
    "gone  | /nonexistent/b.so | pkg-b | dpkg:pkg-b | none | default\n"
    "slow  | /bin/sh | - | git | none | opt-in\n";

static const char list_text[] =
    "# name | threads | params | quick | description\n"
    "multi | 1,2,4 | --a=1; --a=2 | --a=0 | a multi-threaded one\n"
    "single | - | | | a single-threaded one\n";

/* Registry lines: fields, resolution of candidates, matrix column. */
static void test_registry(struct hb_registry *reg)
{
    char err[256];
    TCHECK("registry parses", hb_registry_parse(reg, registry_text, err, sizeof err) == 0);
    TCHECK("registry has 4 allocators", reg->n == 4);
    struct hb_alloc *g = hb_registry_find(reg, "glibc"), *r = hb_registry_find(reg, "real");
    struct hb_alloc *gone = hb_registry_find(reg, "gone"), *slow = hb_registry_find(reg, "slow");
    TCHECK("glibc is the system allocator", g && g->system && g->found && !g->lib);
    TCHECK("second candidate used when the first is missing", r && r->found && r->lib && strstr(r->lib, "sh"));
    TCHECK("package field kept", r && strcmp(r->package, "pkg-a") == 0);
    TCHECK("missing library is not found", gone && !gone->found && !gone->lib);
    TCHECK("opt-in column read", slow && !slow->is_default && r->is_default);
    struct hb_registry bad = {0};
    TCHECK("registry with 5 fields rejected", hb_registry_parse(&bad, "x | - | p | v | t\n", err, sizeof err) != 0);
    TCHECK("registry error names the line", strstr(err, "line 1") != NULL);
    TCHECK("registry bad matrix word rejected", hb_registry_parse(&bad, "x | - | p | v | t | maybe\n", err, sizeof err) != 0);
    hb_registry_free(&bad);
}

/* A glob candidate resolves to its highest-version match (llvm-14 before llvm-9), and one that
 * matches nothing is not found. */
static void test_registry_glob(void)
{
    char dir[] = "/tmp/hb-registry-glob-XXXXXX", err[256];
    TCHECK("glob: temp dir", mkdtemp(dir) != NULL);
    const char *versions[] = {"llvm-9", "llvm-14", "llvm-13"};
    for (size_t i = 0; i < 3; i++) {
        char *sub = hb_xasprintf("%s/%s", dir, versions[i]), *lib = hb_xasprintf("%s/libx.so", sub);
        mkdir(sub, 0700);
        fclose(fopen(lib, "w"));
        free(sub), free(lib);
    }
    char *text = hb_xasprintf("x | %s/llvm-*/libx.so | p | dpkg | none | default\n"
                              "y | %s/llvm-*/liby.so | p | dpkg | none | default\n", dir, dir);
    struct hb_registry reg = {0};
    TCHECK("glob: registry parses", hb_registry_parse(&reg, text, err, sizeof err) == 0);
    struct hb_alloc *x = hb_registry_find(&reg, "x"), *y = hb_registry_find(&reg, "y");
    TCHECK("glob: the highest version is chosen", x && x->found && x->lib && strstr(x->lib, "/llvm-14/libx.so"));
    TCHECK("glob: no match is not found", y && !y->found && !y->lib);
    hb_registry_identify(x);
    TCHECK("glob: version of a file no package owns is empty", x && strcmp(x->version, "") == 0);
    hb_registry_free(&reg);
    free(text);
    char *rm = hb_xasprintf("rm -rf '%s'", dir);
    TCHECK("glob: temp dir removed", system(rm) == 0);
    free(rm);
}

/* LIST lines: threads, param sets. */
static void test_worklist(struct hb_worklist *wl)
{
    char err[256];
    TCHECK("LIST parses", hb_worklist_parse(wl, list_text, err, sizeof err) == 0);
    struct hb_workload *m = hb_worklist_find(wl, "multi"), *s = hb_worklist_find(wl, "single");
    TCHECK("LIST threads", m && m->nthreads == 3 && m->threads[2] == 4);
    TCHECK("LIST param sets split on ;", m && m->params.n == 2 && strcmp(m->params.v[1], "--a=2") == 0);
    TCHECK("LIST single-threaded, one empty param set", s && s->nthreads == 0 && s->params.n == 1 && !*s->params.v[0]);
    struct hb_worklist bad = {0};
    TCHECK("LIST bad threads rejected", hb_worklist_parse(&bad, "x | 1,a | | | d\n", err, sizeof err) != 0);
    hb_worklist_free(&bad);
}

/* Long tables: names stay unique across a second parse and thousands of lines; every entry and
 * its fields survive the arrays' growth; a '#' on a later line cuts only that line. */
static void test_long_tables(void)
{
    char err[256];
    struct hb_worklist wl = {0};
    TCHECK("LIST: a name repeated on a later line is refused",
           hb_worklist_parse(&wl, "a | - | | | x\nb | - | | | y\na | - | | | z\n", err, sizeof err) != 0 && strstr(err, "line 3"));
    hb_worklist_free(&wl);
    TCHECK("LIST: a name given by an earlier parse is refused", hb_worklist_parse(&wl, "a | - | | | x\n", err, sizeof err) == 0 &&
                                                                hb_worklist_parse(&wl, "b | - | | | y\na | - | | | z\n", err, sizeof err) != 0);
    hb_worklist_free(&wl);
    struct hb_strv lines = {0};
    for (int i = 0; i < 3000; i++)
        hb_strv_pushf(&lines, "w%d | - | --n=%d | | d%d", i, i, i);
    char *text = hb_strv_join(&lines, "\n");
    int ok = hb_worklist_parse(&wl, text, err, sizeof err) == 0 && wl.n == 3000;
    for (size_t i = 0; ok && i < wl.n; i++) {
        char want[32];
        snprintf(want, sizeof want, "w%zu", i);
        ok = strcmp(wl.w[i].name, want) == 0 && hb_worklist_find(&wl, want) == &wl.w[i];
    }
    TCHECK("LIST of 3000 names: each kept, in order, found", ok);
    hb_worklist_free(&wl);
    free(text);
    hb_strv_free(&lines);
    struct hb_registry reg = {0};
    TCHECK("registry: a '#' on a later line does not cut an earlier one",
           hb_registry_parse(&reg, "a | - | p | v | t | default\n# c | d\n", err, sizeof err) == 0 && reg.n == 1 &&
               strcmp(reg.a[0].tunables, "t") == 0);
    hb_registry_free(&reg);
}

/* Parses a NULL-terminated literal argv into o. */
static void parse(struct hb_options *o, enum hb_cmd cmd, char **argv)
{
    int argc = 0;
    while (argv[argc])
        argc++;
    hb_options_parse(o, cmd, argc, argv);
}

/* Option defaults and parsing of each kind of value. */
static void test_options(void)
{
    struct hb_options o;
    parse(&o, HB_CMD_RUN, (char *[]){"run", NULL});
    TCHECK("defaults reps 5 warmup 1 timeout 300 interval 10",
           o.reps == 5 && o.warmup == 1 && o.timeout_s == 300 && o.interval_ms == 10 && o.shard_n == 1);
    hb_options_free(&o);
    parse(&o, HB_CMD_RUN, (char *[]){"run", "--quick", "-w", "a,b", "-t", "1,8", "--env", "A=1 B=2", "--env", "",
                                     "--shard", "2/3", "--pin", "0-1", "--timeout", "2.5", NULL});
    TCHECK("--quick makes reps 2", o.quick && o.reps == 2);
    TCHECK("-w split", o.workloads.n == 2 && strcmp(o.workloads.v[1], "b") == 0);
    TCHECK("-t split", o.threads.n == 2 && strcmp(o.threads.v[1], "8") == 0);
    TCHECK("--env repeated, empty kept", o.envs.n == 2 && strcmp(o.envs.v[0], "A=1 B=2") == 0 && !*o.envs.v[1]);
    TCHECK("--shard i/N", o.shard_i == 2 && o.shard_n == 3);
    TCHECK("--pin cpu list", o.have_pin && CPU_ISSET(0, &o.pin) && CPU_ISSET(1, &o.pin) && CPU_COUNT(&o.pin) == 2);
    TCHECK("--timeout fraction", o.timeout_s == 2.5);
    hb_options_free(&o);
    parse(&o, HB_CMD_EXEC, (char *[]){"exec", "-n", "3", "--", "prog", "-x", "--y", NULL});
    TCHECK("exec keeps the command after --", o.reps == 3 && o.command.n == 3 && strcmp(o.command.v[1], "-x") == 0);
    hb_options_free(&o);
    parse(&o, HB_CMD_EXEC, (char *[]){"exec", "-w", "base,head", "--alternate", "--", "a", "1", ":::", "b", NULL});
    TCHECK("exec -w N1,N2 keeps both commands and the separator", o.alternate && o.workloads.n == 2 &&
                                                                     o.command.n == 4 && !strcmp(o.command.v[2], ":::"));
    hb_options_free(&o);
}

/* exec -w N1,N2 with a command count that does not match, or a name twice: exit 2, one line. */
static void test_exec_commands_refused(void)
{
    char *cases[][9] = {
        {"exec", "-w", "base,head", "--", "a", "1", NULL},                   /* one command for two names */
        {"exec", "-w", "base,head", "--", "a", ":::", NULL},                 /* the second command empty */
        {"exec", "-w", "base,head", "--", ":::", "b", NULL},                 /* the first command empty */
        {"exec", "-w", "base,head", "--", "a", ":::", "b", ":::", "c"},    /* three commands */
        {"exec", "-w", "same,same", "--", "a", ":::", "b", NULL},            /* a name twice */
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        int argc = 0;
        while (argc < 9 && cases[i][argc])
            argc++;
        char *argv[10] = {0};
        memcpy(argv, cases[i], (size_t)argc * sizeof *argv);
        fflush(NULL);
        pid_t pid = fork();
        if (pid == 0) {
            struct hb_options o;
            if (!freopen("/dev/null", "w", stderr))
                _exit(99);
            hb_options_parse(&o, HB_CMD_EXEC, argc, argv);
            _exit(0);
        }
        int status = 0;
        waitpid(pid, &status, 0);
        char name[96];
        snprintf(name, sizeof name, "exec -w: refused case %zu exits 2", i + 1);
        TCHECK(name, WIFEXITED(status) && WEXITSTATUS(status) == 2);
    }
}

/* --alternate: even rounds visit the groups last to first; without it every round is in order. */
static void test_alternate(struct hb_registry *reg, struct hb_worklist *wl)
{
    struct hb_options o;
    struct hb_matrix m;
    parse(&o, HB_CMD_RUN, (char *[]){"run", "-a", "glibc", "-w", "single", "--env", "", "--env", "X=1",
                                     "--env", "Y=1", "--alternate", NULL});
    hb_matrix_build(&m, &o, wl, reg);
    TCHECK("alternate: three groups", m.ng == 3);
    TCHECK("alternate: odd rounds in order", hb_matrix_group_at(&m, 1, 0) == 0 && hb_matrix_group_at(&m, 3, 2) == 2);
    TCHECK("alternate: even rounds reversed", hb_matrix_group_at(&m, 2, 0) == 2 && hb_matrix_group_at(&m, 2, 2) == 0 &&
                                                  hb_matrix_group_at(&m, 4, 1) == 1);
    hb_matrix_free(&m);
    hb_options_free(&o);
    parse(&o, HB_CMD_RUN, (char *[]){"run", "-a", "glibc", "-w", "single", "--env", "", "--env", "X=1", NULL});
    hb_matrix_build(&m, &o, wl, reg);
    TCHECK("no --alternate: even rounds in order too", hb_matrix_group_at(&m, 2, 0) == 0 && hb_matrix_group_at(&m, 2, 1) == 1);
    hb_matrix_free(&m);
    hb_options_free(&o);
}

/* The matrix: group order, run numbers, shards, marks. */
static void test_matrix(struct hb_registry *reg, struct hb_worklist *wl)
{
    struct hb_options o;
    struct hb_matrix m;
    parse(&o, HB_CMD_RUN, (char *[]){"run", "-a", "glibc,real,gone", "-n", "2", "--env", "", "--env", "X=1", NULL});
    hb_matrix_build(&m, &o, wl, reg);
    /* multi: 2 params x 3 threads x 2 envs = 12 groups; single: 1 x 1 x 2 = 2 groups. */
    TCHECK("group count", m.ng == 14);
    TCHECK("allocators as asked, in order", m.nalloc == 3 && strcmp(m.alloc[2]->name, "gone") == 0);
    TCHECK("single-threaded group has threads 1 and no --threads", m.g[12].threads == 1 && !m.g[12].pass_threads);
    TCHECK("groups enumerate params, then threads, then env",
           strcmp(m.g[0].params, "--a=1") == 0 && m.g[1].threads == 1 && strcmp(m.g[1].env, "X=1") == 0 &&
               m.g[2].threads == 2 && strcmp(m.g[6].params, "--a=2") == 0);
    TCHECK("first run is 1", hb_matrix_run(&m, 1, 0, 0) == 1);
    TCHECK("allocators interleave within a group", hb_matrix_run(&m, 1, 0, 1) == 2 && hb_matrix_run(&m, 1, 1, 0) == 4);
    TCHECK("rep 2 starts after the whole rep 1 round", hb_matrix_run(&m, 2, 0, 0) == 14 * 3 + 1);
    TCHECK("all pending", hb_matrix_pending(&m) == 14 * 3 * 2);
    size_t g, a;
    TCHECK("mark a runs.csv row", hb_matrix_mark(&m, "multi", "real", "2", "--a=1", "X=1", "2", &g, &a) == 0 &&
                                      g == 3 && a == 1 && *hb_matrix_done(&m, 2, 3, 1));
    TCHECK("a foreign row matches no cell", hb_matrix_mark(&m, "multi", "real", "3", "--a=1", "", "1", &g, &a) != 0);
    TCHECK("pending drops by one", hb_matrix_pending(&m) == 14 * 3 * 2 - 1);
    hb_matrix_free(&m);
    hb_options_free(&o);

    /* default workloads: multi 2 params x 3 threads + single = 7 groups */
    size_t covered = 0, total = 0;
    for (int i = 1; i <= 3; i++) {
        char shard[8];
        snprintf(shard, sizeof shard, "%d/3", i);
        parse(&o, HB_CMD_RUN, (char *[]){"run", "--shard", shard, NULL});
        hb_matrix_build(&m, &o, wl, reg);
        total = m.ng;
        for (size_t k = 0; k < m.ng; k++)
            covered += hb_matrix_in_shard(&m, k);
        hb_matrix_free(&m);
        hb_options_free(&o);
    }
    TCHECK("three shards cover every group exactly once", covered == total && total == 7);
    parse(&o, HB_CMD_RUN, (char *[]){"run", NULL});
    hb_matrix_build(&m, &o, wl, reg);
    TCHECK("default allocators: the 'default' ones, missing included", m.nalloc == 3);
    hb_matrix_free(&m);
    hb_options_free(&o);
}

/* Runs every check above; the exit status says whether one failed. */
int main(void)
{
    struct hb_registry reg = {0};
    struct hb_worklist wl = {0};
    test_registry(&reg);
    test_registry_glob();
    test_worklist(&wl);
    test_long_tables();
    test_options();
    test_matrix(&reg, &wl);
    test_exec_commands_refused();
    test_alternate(&reg, &wl);
    hb_registry_free(&reg);
    hb_worklist_free(&wl);
    return tcheck_summary();
}
