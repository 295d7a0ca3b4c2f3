/* check.h - `heapbench check DIR`: is a results directory whole (integrity.h)?
 *
 * Always holds: nothing in DIR is written; exit 0 when every CSV is whole, 1 when a defect was
 * found (each printed as one line), 2 for a usage error.
 */
#ifndef HEAPBENCH_CHECK_H
#define HEAPBENCH_CHECK_H

/* Runs the subcommand (argv[0] = "check"); returns the exit status. */
int hb_cmd_check(int argc, char **argv);

#endif
