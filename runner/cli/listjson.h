/* listjson.h - `heapbench list --json`: the registry, workloads/LIST and the files the runner read, as one JSON object.
 *
 * Always holds: what it prints is what the runner's own readers (plan/registry.c, plan/worklist.c,
 * base/layout.c) made of the files, nothing computed again; the form is docs/DATA.md's
 * "heapbench list --json"; the Python readers are compared with it on a shared corpus
 * (report/heapbench/tests/test_twins.py).
 */
#ifndef HEAPBENCH_LISTJSON_H
#define HEAPBENCH_LISTJSON_H

#include "plan/registry.h"
#include "plan/worklist.h"

/* Prints the JSON object of reg and wl (and of the layout) on stdout, one line. */
void hb_list_json(const struct hb_registry *reg, const struct hb_worklist *wl);

#endif
