/* worklist.c - parses workloads/LIST and gathers every workload kind into one list (worklist.h).
 *
 * Always holds: names are unique in a worklist (a later --workload-bin replaces the binary of
 * an existing name instead of adding a second one).
 */
#include "plan/worklist.h"

#include <dirent.h>
#include <search.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "plan/describe.h"
#include "base/layout.h"
#include "base/sysinfo.h"

/* Appends a zeroed workload named name and returns it. */
static struct hb_workload *hb_worklist_append(struct hb_worklist *wl, const char *name, enum hb_wl_kind kind)
{
    wl->w = hb_xappend(wl->w, wl->n, sizeof *wl->w);
    struct hb_workload *w = memset(&wl->w[wl->n++], 0, sizeof *wl->w);
    w->name = hb_xstrdup(name);
    w->kind = kind;
    return w;
}

/* Splits "a; b" param sets; an empty field gives one empty set. */
static void hb_worklist_params(struct hb_strv *out, const char *field)
{
    hb_strv_split(out, field, ";", 0);
    if (!out->n)
        hb_strv_push(out, "");
}

/* Parses "1,2,4" or "-" into w->threads; -1 when malformed. */
static int hb_worklist_threads(struct hb_workload *w, const char *field)
{
    if (strcmp(field, "-") == 0)
        return 0;
    struct hb_strv t = {0};
    hb_strv_split(&t, field, ",", 0);
    int rc = t.n && t.n <= HB_MAX_THREADS ? 0 : -1;
    for (size_t i = 0; i < t.n && rc == 0; i++)
        rc = hb_parse_int(t.v[i], &w->threads[w->nthreads++]);
    hb_strv_free(&t);
    return rc;
}

/* 1 when name is in seen; else 0, after adding it when add (name must then outlive seen). */
static int hb_worklist_seen(struct hsearch_data *seen, char *name, int add)
{
    ENTRY e = {name, NULL}, *found;
    if (hsearch_r(e, FIND, &found, seen))
        return 1;
    if (add)
        hsearch_r(e, ENTER, &found, seen); /* cannot fail: seen has room for every line */
    return 0;
}

/* A hash set of wl's names with room for every line of text more: a linear search of the names
 * per line made a long LIST quadratic. */
static void hb_worklist_seen_init(struct hsearch_data *seen, const struct hb_worklist *wl, const char *text)
{
    size_t lines = 1;
    for (const char *p = text; (p = strchr(p, '\n')) != NULL; p++)
        lines++;
    memset(seen, 0, sizeof *seen);
    if (!hcreate_r(wl->n + lines + 1, seen))
        hb_fatal("out of memory reading a workload list of %zu lines", lines);
    for (size_t i = 0; i < wl->n; i++)
        hb_worklist_seen(seen, wl->w[i].name, 1);
}

/* Parses LIST text. */
int hb_worklist_parse(struct hb_worklist *wl, const char *text, char *err, size_t errlen)
{
    struct hb_strv f = {0};
    struct hsearch_data seen;
    size_t pos = 0, ln = 0;
    int rc = 0;
    hb_worklist_seen_init(&seen, wl, text);
    while (rc == 0 && hb_table_next(text, &pos, &ln, &f) == 0) {
        if (f.n != 5 || !*f.v[0] || hb_worklist_seen(&seen, f.v[0], 0)) {
            snprintf(err, errlen, "line %zu: want 'name | threads | param sets | quick param sets | "
                     "description' with a new name", ln);
            rc = -1;
        } else {
            struct hb_workload *w = hb_worklist_append(wl, f.v[0], HB_WL_BINARY);
            hb_worklist_seen(&seen, w->name, 1);
            char *rel = hb_xasprintf("build/workloads/%s", f.v[0]);
            w->bin = hb_root_path(rel);
            free(rel);
            hb_worklist_params(&w->params, f.v[2]);
            hb_worklist_params(&w->quick_params, f.v[3]);
            w->description = hb_xstrdup(f.v[4]);
            if (hb_worklist_threads(w, f.v[1]) != 0) {
                snprintf(err, errlen, "line %zu: threads '%s' is not '-' or a list like 1,2,4", ln, f.v[1]);
                rc = -1;
            }
        }
    }
    hb_strv_free(&f);
    hdestroy_r(&seen);
    return rc;
}

/* Loads the project's LIST. */
void hb_worklist_load(struct hb_worklist *wl)
{
    char *path = hb_root_path("workloads/LIST");
    char *text = hb_read_file(path, NULL);
    char err[256];
    if (text && hb_worklist_parse(wl, text, err, sizeof err) != 0)
        hb_fatal("%s: %s", path, err);
    free(text);
    free(path);
}

/* --workload-bin NAME=PATH. */
struct hb_workload *hb_worklist_add_bin(struct hb_worklist *wl, const char *spec)
{
    const char *eq = strchr(spec, '=');
    char *name = hb_xasprintf("%.*s", (int)(eq - spec), spec);
    if (access(eq + 1, X_OK) != 0)
        hb_usage("--workload-bin %s: %s is not an executable file; give the path of a workload binary",
                 spec, eq + 1);
    struct hb_workload *w = hb_worklist_find(wl, name);
    if (!w) {
        w = hb_worklist_append(wl, name, HB_WL_BINARY);
        w->description = hb_xstrdup("user workload (--workload-bin)");
        hb_strv_push(&w->params, "");
        hb_strv_push(&w->quick_params, "");
    }
    free(w->bin);
    w->bin = hb_xstrdup(eq + 1);
    free(name);
    return w;
}

/* prog:NAME workloads. */
void hb_worklist_add_programs(struct hb_worklist *wl, struct hb_program *progs, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        char *name = hb_xasprintf("prog:%s", progs[i].name);
        struct hb_workload *w = hb_worklist_append(wl, name, HB_WL_PROGRAM);
        w->prog = &progs[i];
        w->description = hb_xstrdup(progs[i].description ? progs[i].description : "");
        hb_strv_push(&w->params, progs[i].command);
        hb_strv_push(&w->quick_params, progs[i].command);
        free(name);
    }
}

/* trace:FILE: the replayer with --trace=<absolute path>; one empty param set (--touch, --speed
 * go there). */
struct hb_workload *hb_worklist_add_trace(struct hb_worklist *wl, const char *name)
{
    const char *file = name + strlen("trace:");
    char *rooted = hb_xasprintf("%s/%s", hb_root(), file);
    const char *use = access(file, R_OK) == 0 || file[0] == '/' ? file : rooted;
    char *abs = *file ? realpath(use, NULL) : NULL; /* any bytes but NUL: the path is one argv word */
    struct stat st;
    if (abs && stat(abs, &st) == 0 && S_ISDIR(st.st_mode))
        hb_usage("%s: %s is a directory; name a trace file in it, e.g. trace:%s/NAME.hbt", name, file, file);
    if (!abs || access(abs, R_OK) != 0)
        hb_usage("%s: no readable trace %s; record one with heapbench record -o FILE -- CMD", name, file);
    free(rooted);
    struct hb_workload *w = hb_worklist_append(wl, name, HB_WL_BINARY);
    w->bin = hb_root_path("build/replay/hbreplay");
    hb_strv_pushf(&w->args, "--trace=%s", abs);
    hb_strv_push(&w->params, "");
    hb_strv_push(&w->quick_params, "");
    w->description = hb_xasprintf("replay of the allocation trace %s (heapbench record)", abs);
    free(abs);
    return w;
}

/* qsort comparator for strings (the traces join the matrix in name order). */
static int hb_cmp_str(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

void hb_worklist_add_traces(struct hb_worklist *wl)
{
    char *results = hb_results_dir(); /* results/ of the tree, or of the current directory when installed */
    char *dir = hb_xasprintf("%s/traces", results);
    free(results);
    DIR *d = opendir(dir);
    struct hb_strv names = {0};
    for (struct dirent *e; d && (e = readdir(d));) {
        size_t n = strlen(e->d_name);
        if (n > 4 && strcmp(e->d_name + n - 4, ".hbt") == 0 && !strchr(e->d_name, ' '))
            hb_strv_pushf(&names, "trace:results/traces/%s", e->d_name);
    }
    if (d)
        closedir(d);
    qsort(names.v, names.n, sizeof *names.v, hb_cmp_str);
    for (size_t i = 0; i < names.n; i++)
        if (!hb_worklist_find(wl, names.v[i]))
            hb_worklist_add_trace(wl, names.v[i]);
    hb_strv_free(&names);
    free(dir);
}

/* The exec command workload; params = the full command line. Its name must not be a workload's:
 * the cell would then be looked up as that workload, with its parameters instead of the command's. */
struct hb_workload *hb_worklist_add_command(struct hb_worklist *wl, const char *name, const struct hb_strv *argv)
{
    const char *base = strrchr(argv->v[0], '/');
    const char *cell = name ? name : base ? base + 1 : argv->v[0];
    for (const unsigned char *c = (const unsigned char *)cell; !name && *c; c++)
        if (hb_is_ctrl(*c))
            hb_usage("exec: the program's file name holds a control character (a newline, a tab, ...), which "
                     "would split the cell's lines; name its cell with -w NAME of printable characters");
    if (hb_worklist_find(wl, cell))
        hb_usage("exec: the cell name '%s' is a heapbench workload's, whose cells would run instead of "
                 "the command; name the command's cell with -w NAME, or run the workload with "
                 "heapbench run -w %s -p 'PARAMS'", cell, cell);
    struct hb_workload *w = hb_worklist_append(wl, cell, HB_WL_COMMAND);
    hb_strv_extend(&w->command, argv);
    char *line = hb_strv_join(argv, " ");
    hb_strv_push(&w->params, line);
    hb_strv_push(&w->quick_params, line);
    free(line);
    w->description = hb_xstrdup("command (heapbench exec)");
    return w;
}

/* Workload by name. */
struct hb_workload *hb_worklist_find(const struct hb_worklist *wl, const char *name)
{
    for (size_t i = 0; i < wl->n; i++)
        if (strcmp(wl->w[i].name, name) == 0)
            return &wl->w[i];
    return NULL;
}

/* Comma-separated names. */
char *hb_worklist_names(const struct hb_worklist *wl)
{
    struct hb_strv names = {0};
    for (size_t i = 0; i < wl->n; i++)
        hb_strv_push(&names, wl->w[i].name);
    char *s = hb_strv_join(&names, ", ");
    hb_strv_free(&names);
    return s;
}

/* Runs BIN --describe and prints its parameter lines indented. */
void hb_worklist_describe(const struct hb_workload *w, FILE *out)
{
    if (w->kind != HB_WL_BINARY)
        return;
    if (access(w->bin, X_OK) != 0) {
        fprintf(out, "      (not built: %s; run make)\n", w->bin);
        return;
    }
    struct hb_describe d;
    hb_describe_load(&d, w->bin);
    for (size_t i = 0; i < d.n; i++) { /* a word parameter's description already lists its choices */
        int range = strstr(d.p[i].accepts, "..") != NULL;
        fprintf(out, "      --%-14s default %-10s %s%s%s%s\n", d.p[i].name, d.p[i].def, d.p[i].desc,
                range ? " [" : "", range ? d.p[i].accepts : "", range ? "]" : "");
    }
    if (!d.n)
        fprintf(out, "      (%s --describe printed nothing)\n", w->bin);
    hb_describe_free(&d);
}

/* Frees every workload. */
void hb_worklist_free(struct hb_worklist *wl)
{
    for (size_t i = 0; i < wl->n; i++) {
        struct hb_workload *w = &wl->w[i];
        free(w->name), free(w->bin), free(w->description);
        hb_strv_free(&w->params);
        hb_strv_free(&w->quick_params);
        hb_strv_free(&w->command);
        hb_strv_free(&w->args);
    }
    free(wl->w);
    wl->w = NULL;
    wl->n = 0;
}
