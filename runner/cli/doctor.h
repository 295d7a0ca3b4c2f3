/* doctor.h - `heapbench doctor`: what would make measurements noisy on this machine, with what to
 * do about each (load, other busy processes, CPU steal, iowait, a VM, the frequency governor and
 * turbo, transparent huge pages, ASLR, counters).
 *
 * Always holds: nothing is changed on the machine; one line per finding, "ok", "warn" or "note"
 * first; exit 0 whatever it finds, 2 for a usage error.
 */
#ifndef HEAPBENCH_DOCTOR_H
#define HEAPBENCH_DOCTOR_H

/* Runs the subcommand (argv[0] = "doctor"); returns the exit status. */
int hb_cmd_doctor(int argc, char **argv);

#endif
