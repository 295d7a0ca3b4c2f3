/* list.c - prints allocators and workloads (see list.h).
 *
 * Always holds: output goes to stdout only; the only processes started are the workloads'
 * --describe, dpkg-query, sha256sum and git.
 */
#include "cli/list.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/listjson.h"
#include "plan/options.h"
#include "plan/registry.h"
#include "plan/worklist.h"

/* Prints the allocator table. */
static void hb_list_allocators(struct hb_registry *reg)
{
    printf("allocators:\n  %-18s %-8s %-8s %-22s %-24s %s\n", "name", "status", "matrix", "package", "version",
           "library");
    for (size_t i = 0; i < reg->n; i++) {
        struct hb_alloc *a = &reg->a[i];
        hb_registry_identify(a);
        printf("  %-18s %-8s %-8s %-22s %-24.24s %s", a->name, a->found ? "found" : "missing",
               a->is_default ? "default" : "opt-in", a->package, a->version[0] ? a->version : "-",
               a->system ? "(system malloc, nothing preloaded)" : a->found ? a->lib : a->candidates);
        if (!a->found)
            printf("  -> apt-get install %s", a->package);
        printf("\n");
    }
}

/* Prints one workload: description, threads, param sets, parameters. */
static void hb_list_workload(const struct hb_workload *w)
{
    printf("  %s\n      %s\n", w->name, w->description);
    if (w->kind == HB_WL_PROGRAM) {
        const struct hb_program *p = w->prog;
        printf("      command: %s\n      requires: %s\n", p->command, p->missing ? p->missing : "installed");
        if (p->matrix && !strcmp(p->matrix, "opt-in"))
            printf("      matrix: opt-in (not in the default matrix; run it by name: -w %s)\n", w->name);
        if (p->missing)
            printf("      (skipped: %s not installed; apt-get install %s)\n", p->missing,
                   p->package ? p->package : p->missing);
        return;
    }
    printf("      threads: ");
    for (size_t t = 0; t < w->nthreads; t++)
        printf("%s%d", t ? "," : "", w->threads[t]);
    printf("%s\n", w->nthreads ? "" : "- (single-threaded)");
    char *sets = hb_strv_join(&w->params, "; "), *quick = hb_strv_join(&w->quick_params, "; ");
    printf("      param sets: %s\n      quick param sets: %s\n      parameters:\n", sets, quick);
    free(sets);
    free(quick);
    hb_worklist_describe(w, stdout);
}

/* The subcommand. */
int hb_cmd_list(int argc, char **argv)
{
    struct hb_options o;
    hb_options_parse(&o, HB_CMD_LIST, argc, argv);
    struct hb_registry reg = {0};
    struct hb_worklist wl = {0};
    struct hb_program *progs;
    size_t nprogs;
    hb_registry_load(&reg);
    hb_worklist_load(&wl);
    hb_program_load_all(&progs, &nprogs);
    hb_worklist_add_programs(&wl, progs, nprogs);
    hb_worklist_add_traces(&wl);
    if (o.json) {
        hb_list_json(&reg, &wl);
    } else {
        hb_list_allocators(&reg);
        printf("\nworkloads:\n");
        for (size_t i = 0; i < wl.n; i++)
            hb_list_workload(&wl.w[i]);
    }
    hb_worklist_free(&wl);
    hb_registry_free(&reg);
    for (size_t i = 0; i < nprogs; i++)
        hb_program_free(&progs[i]);
    free(progs);
    hb_options_free(&o);
    return 0;
}
