/* runcmd.h - `heapbench run` and `heapbench exec`: from the command line to a finished
 * results directory, its summary table and the closing "results: DIR" line.
 *
 * Always holds: "results: DIR" is the last line on stdout; the exit status is 0 when every
 * measured run was ok, 130 when SIGINT/SIGTERM cut it (meta.json then says interrupted=true),
 * 2 on usage errors, 1 when a run failed, crashed or timed out, an allocator named with -a or
 * --allocator is missing, or a results file (CSV or meta.json) could not be written.
 */
#ifndef HEAPBENCH_RUNCMD_H
#define HEAPBENCH_RUNCMD_H

#include "plan/options.h"

/* Runs the subcommand cmd (HB_CMD_RUN or HB_CMD_EXEC) with argv[0] = its name. Returns the
 * process exit status. */
int hb_cmd_run(enum hb_cmd cmd, int argc, char **argv);

#endif
