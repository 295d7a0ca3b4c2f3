/* tracecmd.h - the trace subcommands: `heapbench record [-o FILE] -- CMD ARGS...`
 * records a program's allocations (and its own run without the recorder) into a trace;
 * `heapbench trace FILE` prints a trace's statistics (build/replay/hbtrace).
 * Always holds: the command line is parsed by options.c (HB_CMD_RECORD, HB_CMD_TRACE), usage errors
 * exit 2 with one line; the original run is measured by launch.c,
 * the recorded run and hbtrace are helpers started by the spawner. */
#ifndef HEAPBENCH_TRACECMD_H
#define HEAPBENCH_TRACECMD_H

/* heapbench record ARGS (argv[0] is "record"). Returns the exit status. */
int hb_cmd_record(int argc, char **argv);

/* heapbench trace ARGS (argv[0] is "trace"). Returns hbtrace's exit status. */
int hb_cmd_trace(int argc, char **argv);

#endif
