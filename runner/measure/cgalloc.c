/* cgalloc.c - sums the outermost malloc-API calls' inclusive instructions of a callgrind output
 * file (see cgalloc.h; the format is valgrind's "Callgrind Format Specification").
 *
 * Always holds: names are kept per compressed id ("fn=(7) malloc" defines id 7, "cfn=(7)" refers
 * to it; fn and cfn share one table); a "calls=" line's next line is the call's cost line,
 * "POSITION... Ir ..."; the number of position fields comes from the "positions:" line (1 by default).
 */
#include "measure/cgalloc.h"

#include <stdlib.h>
#include <string.h>

#include "base/util.h"

/* The entry points: the malloc API of C, glibc's and the allocators' own names of it, C++'s
 * operators (mangled). An allocator whose exported malloc is an alias shows under one of its names. */
static const char *const hb_cgalloc_names[] = {
    "malloc", "free", "calloc", "realloc", "reallocarray", "memalign", "posix_memalign", "aligned_alloc",
    "valloc", "pvalloc", "cfree", "free_sized", "free_aligned_sized",
    "__libc_malloc", "__libc_free", "__libc_calloc", "__libc_realloc", "__libc_memalign", "__libc_valloc",
    "__libc_pvalloc", "__posix_memalign",
    "mi_malloc", "mi_free", "mi_calloc", "mi_realloc", "mi_reallocarray", "mi_malloc_aligned", "mi_posix_memalign",
    "mi_aligned_alloc", "mi_memalign", "mi_valloc", "mi_pvalloc", "mi_cfree",
    "tc_malloc", "tc_free", "tc_calloc", "tc_realloc", "tc_memalign", "tc_posix_memalign", "tc_valloc",
    "tc_pvalloc", "tc_cfree", "tc_free_sized", "tc_new", "tc_delete", "tc_newarray", "tc_deletearray",
    "scalable_malloc", "scalable_free", "scalable_calloc", "scalable_realloc", "scalable_aligned_malloc",
    "scalable_posix_memalign",
    "_Znwm", "_Znam", "_ZdlPv", "_ZdaPv", "_ZdlPvm", "_ZdaPvm", "_ZnwmRKSt9nothrow_t", "_ZnamRKSt9nothrow_t",
    "_ZnwmSt11align_val_t", "_ZnamSt11align_val_t", "_ZdlPvSt11align_val_t", "_ZdaPvSt11align_val_t",
    "_ZdlPvmSt11align_val_t", "_ZdaPvmSt11align_val_t", "_ZnwmSt11align_val_tRKSt9nothrow_t",
    "_ZnamSt11align_val_tRKSt9nothrow_t", "_ZdlPvRKSt9nothrow_t", "_ZdaPvRKSt9nothrow_t",
    NULL};

/* Is name an entry point (cgalloc.h)? */
int hb_cgalloc_entry(const char *name)
{
    size_t len = strcspn(name, "'\n");
    for (size_t i = 0; hb_cgalloc_names[i]; i++)
        if (strlen(hb_cgalloc_names[i]) == len && strncmp(hb_cgalloc_names[i], name, len) == 0)
            return 1;
    return 0;
}

struct hb_cg_names {
    char **v;
    size_t n;
};

/* The function a "fn=" or "cfn=" value names: "(id) name" defines id, "(id)" refers, "name" is
 * uncompressed. Returns 1 when it is an entry point. */
static int hb_cg_fn(struct hb_cg_names *t, const char *val)
{
    if (*val != '(')
        return hb_cgalloc_entry(val);
    char *end;
    unsigned long id = strtoul(val + 1, &end, 10);
    if (*end != ')' || id > 10000000)
        return 0;
    if (end[1] == ' ') {
        if (id >= t->n) {
            t->v = hb_xrealloc(t->v, (id + 1) * sizeof *t->v);
            memset(t->v + t->n, 0, (id + 1 - t->n) * sizeof *t->v);
            t->n = id + 1;
        }
        free(t->v[id]);
        t->v[id] = hb_xstrdup(end + 2);
        t->v[id][strcspn(t->v[id], "\n")] = '\0';
    }
    return id < t->n && t->v[id] && hb_cgalloc_entry(t->v[id]);
}

/* The Ir of a cost line after npos position fields; 0 when it has none. */
static double hb_cg_cost(const char *line, int npos)
{
    const char *p = line;
    for (int i = 0; i < npos; i++) {
        p += strspn(p, " \t");
        p += strcspn(p, " \t\n");
    }
    return strtod(p, NULL);
}

/* Reads the file (cgalloc.h). */
int hb_cgalloc_read(FILE *f, double *alloc, double *total)
{
    struct hb_cg_names names = {0};
    char *line = NULL;
    size_t cap = 0;
    int npos = 1, in_entry = 0, calls_entry = 0, cost_next = 0, have_totals = 0, have_summary = 0;
    double summary = 0;
    *alloc = 0, *total = 0;
    while (getline(&line, &cap, f) > 0) {
        if (cost_next) {
            if (calls_entry && !in_entry)
                *alloc += hb_cg_cost(line, npos);
            cost_next = 0;
        } else if (strncmp(line, "fn=", 3) == 0) {
            in_entry = hb_cg_fn(&names, line + 3);
        } else if (strncmp(line, "cfn=", 4) == 0) {
            calls_entry = hb_cg_fn(&names, line + 4);
        } else if (strncmp(line, "calls=", 6) == 0) {
            cost_next = 1;
        } else if (strncmp(line, "positions:", 10) == 0) {
            npos = strstr(line, "instr") && strstr(line, "line") ? 2 : 1;
        } else if (strncmp(line, "totals:", 7) == 0) { /* one per part (dump): they add up */
            *total += strtod(line + 7, NULL);
            have_totals = 1;
        } else if (strncmp(line, "summary:", 8) == 0) {
            summary += strtod(line + 8, NULL);
            have_summary = 1;
        }
    }
    free(line);
    for (size_t i = 0; i < names.n; i++)
        free(names.v[i]);
    free(names.v);
    if (!have_totals)
        *total = summary;
    return have_totals || have_summary ? 0 : -1;
}
