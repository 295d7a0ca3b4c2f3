/* layout.h - where heapbench's parts are: the source tree it was built in, or the prefix it is installed under.
 *
 * Always holds: every path the runner opens for its own files (libraries, workloads, registry,
 * LIST, programs, Python) goes through hb_root_path(), which follows install/LAYOUT when heapbench
 * is installed, so the installed CLI never needs the source tree; results never go into an
 * install prefix (hb_results_dir). Decided once per process, from /proc/self/exe.
 */
#ifndef HEAPBENCH_LAYOUT_H
#define HEAPBENCH_LAYOUT_H

/* The source tree's root (the parent of build/ that holds build/heapbench), or the install
 * prefix (the parent of bin/ that holds bin/heapbench, or the compiled-in HB_PREFIX). Never NULL. */
const char *hb_root(void);

/* 1 when running from an installed prefix (it has share/heapbench/LAYOUT), 0 in a source tree. */
int hb_installed(void);

/* The file of an installed heapbench's layout table (PREFIX/share/heapbench/LAYOUT); NULL in a source tree. */
const char *hb_layout_file(void);

/* Where a source-tree path (build/lib/librefmalloc.so, workloads/LIST, report, ...) is: under the
 * root in a source tree; where install/LAYOUT put it when installed (a path no line names is
 * looked for under PREFIX/share/heapbench/). Absolute paths come back unchanged. New string. */
char *hb_root_path(const char *rel);

/* Where runs are written: $HEAPBENCH_RESULTS (made absolute) when set; else ./results (absolute)
 * when installed; else <root>/results. New string. */
char *hb_results_dir(void);

#endif
