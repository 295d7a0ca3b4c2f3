/* resolve.h - the PATH lookup of a program name, done by the runner itself (launch.c and
 * spawner.c resolve before they start a process, elfcheck.c and program.c to inspect one).
 *
 * Always holds: the lookup is execvp()'s: a name with a '/' is taken as is, else the first
 * executable regular file in the PATH list; it allocates nothing (usable before fork).
 */
#ifndef HEAPBENCH_RESOLVE_H
#define HEAPBENCH_RESOLVE_H

#include <stddef.h>

/* Finds the executable that execvp() would run for name: name itself when it contains a '/',
 * else the first executable regular file in the ':'-separated path_var (NULL or empty:
 * "/usr/local/bin:/usr/bin:/bin"). Returns 0 with the path in out, or -1 with errno set
 * (ENOENT, EACCES, ENAMETOOLONG). Allocates nothing (usable before fork). */
int hb_resolve_program(const char *name, const char *path_var, char *out, size_t out_len);

/* The PATH that programs run with envp are looked up in: envp's PATH, else the runner's own
 * (NULL when neither has one). */
const char *hb_env_path(char *const *envp);

#endif
