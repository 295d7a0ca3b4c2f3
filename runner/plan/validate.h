/* validate.h - the checks of a parsed command line that look at the machine before anything
 * runs: --pin CPUs online, --wrap and exec's command runnable, --resume alone, workload parameters the workload knows.
 *
 * Always holds: a check that fails exits 2 with one line saying what is wrong and what would
 * be right (the online CPUs, the missing shebang, the workload's parameters), before any directory is created.
 */
#ifndef HEAPBENCH_VALIDATE_H
#define HEAPBENCH_VALIDATE_H

#include "matrix.h"
#include "options.h"

/* Checks o (as given on the command line); exits 2 on the first problem. */
void hb_validate_options(const struct hb_options *o);

/* Checks every --key of the param sets of m's built workloads (runcmd calls it for -p's sets) against the names the workload's
 * --describe lists (and threads, seed, quick); exits 2 naming an unknown one and the known ones.
 * A workload whose --describe lists nothing is not checked. */
void hb_validate_params(const struct hb_matrix *m);

/* Checks that name can be executed as a measured program (found, a regular executable file, an
 * ELF binary or a script with a #! line); exits 2 naming what (e.g. "exec", "--wrap"). */
void hb_validate_program(const char *what, const char *name);

#endif
