/* elfcheck.h - what an ELF file's headers say about preloading: whether LD_PRELOAD can take
 * effect in a program, and whether a file is a shared object that can be preloaded.
 *
 * Always holds: the checks only read the file (never run it); an unreadable file is never
 * called impossible to preload (the launch then reports the real error).
 */
#ifndef HEAPBENCH_ELFCHECK_H
#define HEAPBENCH_ELFCHECK_H

#include <stddef.h>

/* 1 if path is an ELF without PT_INTERP (statically linked) or is setuid/setgid: LD_PRELOAD
 * cannot take effect. why gets a short explanation. 0 otherwise or when unreadable. */
int hb_preload_impossible(const char *path, char *why, size_t why_len);

/* 1 if path is an ELF shared object of the runner's class and machine, with a dynamic section,
 * that is not a position-independent executable (what `--allocator NAME=PATH` must name).
 * 0 otherwise, with why set to a one-line explanation ("cannot open ...", "not an ELF file"...). */
int hb_is_shared_object(const char *path, char *why, size_t why_len);

#endif
