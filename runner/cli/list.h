/* list.h - `heapbench list`: the allocators and workloads this checkout can run.
 *
 * Always holds: every registry allocator is listed, found or missing (with the apt-get
 * line); every workload with its threads, param sets and parameters (from --describe).
 */
#ifndef HEAPBENCH_LIST_H
#define HEAPBENCH_LIST_H

/* Runs the subcommand (argv[0] = "list"); returns the exit status. */
int hb_cmd_list(int argc, char **argv);

#endif
