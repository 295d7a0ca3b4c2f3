/* validate.h - the checks of a parsed command line that look at the machine before anything
 * runs: --pin CPUs online, --wrap and exec's command runnable, --resume alone, workload parameters
 * and thread counts the workload accepts.
 *
 * Always holds: a check that fails exits 2 with one line saying what is wrong and what would
 * be right (the online CPUs, the missing shebang, the workload's parameters), before any directory is created.
 */
#ifndef HEAPBENCH_VALIDATE_H
#define HEAPBENCH_VALIDATE_H

#include "plan/matrix.h"
#include "plan/options.h"

/* Checks o (as given on the command line); exits 2 on the first problem. */
void hb_validate_options(const struct hb_options *o);

/* Checks the cells of m's built workloads against each workload's --describe (runcmd calls it when
 * -p or -t is given): every --key of a param set must be a parameter it lists (or threads, seed,
 * quick) and its value one it accepts, and every thread count one its --threads accepts; exits 2
 * naming the workload, the parameter and what it accepts. A workload whose --describe lists
 * nothing is not checked; one that prints no accepts field is checked by name only. */
void hb_validate_params(const struct hb_matrix *m);

/* Checks that name can be executed as a measured program (found, a regular executable file, an
 * ELF binary or a script with a #! line); exits 2 naming what (e.g. "exec", "--wrap"). */
void hb_validate_program(const char *what, const char *name);

#endif
