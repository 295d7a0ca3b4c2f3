/* python.h - the hand-over to the Python side: which Python program serves each subcommand
 * (report, compare, ci, merge, tune) and exec's hyperfine step, and the environment it gets.
 *
 * Always holds: the targets are one table in python.c ({name, target}), the only place that
 * names a Python file or module; every Python program runs under /usr/bin/python3 with
 * HEAPBENCH_ROOT, HEAPBENCH_BIN and PYTHONPATH=<root>/report (before any inherited PYTHONPATH)
 * set in its environment; an installed heapbench runs it with -B (it never writes bytecode into
 * its prefix).
 */
#ifndef HEAPBENCH_PYTHON_H
#define HEAPBENCH_PYTHON_H

/* 1 when name is a subcommand served by Python. */
int hb_python_is_subcommand(const char *name);

/* Replaces the runner with the Python program of subcommand argv[0], passing argv[1..argc-1];
 * exits 2 when /usr/bin/python3 or the program is missing. */
void hb_python_exec(int argc, char **argv) __attribute__((noreturn));

/* Runs the Python program name (e.g. "hyperfine") with the given arguments (NULL-terminated)
 * through spawner.c and waits; returns its exit status, or -1 when it could not be started. */
int hb_python_run(const char *name, char *const args[]);

#endif
