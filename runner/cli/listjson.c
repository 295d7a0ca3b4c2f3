/* listjson.c - `heapbench list --json` (see listjson.h).
 *
 * Always holds: one JSON object on one line of stdout, written by cJSON (every string escaped);
 * a missing library is null, the system allocator's "", a workload without a thread sweep has
 * "threads": null; every path is absolute, as the runner resolved it.
 */
#include "cli/listjson.h"

#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>

#include "base/layout.h"
#include "base/util.h"

/* A JSON array of the strings of sv. */
static cJSON *hb_json_strv(const struct hb_strv *sv)
{
    cJSON *arr = cJSON_CreateArray();
    for (size_t i = 0; i < sv->n; i++)
        cJSON_AddItemToArray(arr, cJSON_CreateString(sv->v[i]));
    return arr;
}

/* One registry line and what it resolved to. */
static cJSON *hb_json_alloc(const struct hb_alloc *a)
{
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "name", a->name);
    cJSON_AddStringToObject(o, "libraries", a->candidates);
    cJSON_AddStringToObject(o, "package", a->package);
    cJSON_AddStringToObject(o, "version", a->version_how);
    cJSON_AddStringToObject(o, "tunables", a->tunables);
    cJSON_AddStringToObject(o, "matrix", a->is_default ? "default" : "opt-in");
    cJSON_AddItemToObject(o, "library", a->system  ? cJSON_CreateString("")
                                        : a->found ? cJSON_CreateString(a->lib)
                                                   : cJSON_CreateNull());
    return o;
}

/* One workload of the list (a LIST line, prog:NAME or trace:FILE). */
static cJSON *hb_json_workload(const struct hb_workload *w)
{
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "name", w->name);
    cJSON_AddStringToObject(o, "kind", w->kind == HB_WL_PROGRAM ? "program" : "binary");
    if (w->kind != HB_WL_PROGRAM) {
        cJSON_AddStringToObject(o, "binary", w->bin);
        cJSON *threads = w->nthreads ? cJSON_CreateArray() : cJSON_CreateNull();
        for (size_t t = 0; t < w->nthreads; t++)
            cJSON_AddItemToArray(threads, cJSON_CreateNumber(w->threads[t]));
        cJSON_AddItemToObject(o, "threads", threads);
        cJSON_AddItemToObject(o, "params", hb_json_strv(&w->params));
        cJSON_AddItemToObject(o, "quick", hb_json_strv(&w->quick_params));
    }
    cJSON_AddStringToObject(o, "description", w->description ? w->description : "");
    return o;
}

/* Where the runner found its files (base/layout.c). */
static cJSON *hb_json_files(void)
{
    static const char *const rel[][2] = {{"registry", "allocators/registry.txt"}, {"list", "workloads/LIST"},
                                         {"programs", "exec/programs"}, {"workloads", "build/workloads"},
                                         {"libraries", "build/lib"}};
    cJSON *o = cJSON_CreateObject();
    for (size_t i = 0; i < sizeof rel / sizeof rel[0]; i++) {
        char *path = hb_root_path(rel[i][1]);
        cJSON_AddStringToObject(o, rel[i][0], path);
        free(path);
    }
    char *results = hb_results_dir();
    cJSON_AddStringToObject(o, "results", results);
    free(results);
    return o;
}

void hb_list_json(const struct hb_registry *reg, const struct hb_worklist *wl)
{
    cJSON *top = cJSON_CreateObject(), *allocs = cJSON_CreateArray(), *works = cJSON_CreateArray();
    for (size_t i = 0; i < reg->n; i++)
        cJSON_AddItemToArray(allocs, hb_json_alloc(&reg->a[i]));
    for (size_t i = 0; i < wl->n; i++)
        cJSON_AddItemToArray(works, hb_json_workload(&wl->w[i]));
    cJSON_AddStringToObject(top, "root", hb_root());
    cJSON_AddBoolToObject(top, "installed", hb_installed());
    cJSON_AddItemToObject(top, "files", hb_json_files());
    cJSON_AddItemToObject(top, "allocators", allocs);
    cJSON_AddItemToObject(top, "workloads", works);
    char *text = cJSON_PrintUnformatted(top);
    if (!text)
        hb_fatal("out of memory printing the list as JSON");
    printf("%s\n", text);
    free(text);
    cJSON_Delete(top);
}
