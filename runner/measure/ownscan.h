/* ownscan.h - the allocators of its own a program file links statically (contract/ownalloc.h's
 * entry points in its ELF symbol tables), which no LD_PRELOAD can replace.
 *
 * Always holds: the file is only read (mapped read-only), never run; a file that is not a
 * readable ELF of this machine gives no finding, never an error.
 */
#ifndef HEAPBENCH_OWNSCAN_H
#define HEAPBENCH_OWNSCAN_H

#include <stddef.h>

/* Writes into out (size n) the allocator names ('+'-separated, in ownalloc.h's order, each
 * once) whose entry point path DEFINES in its symbol tables (.symtab and .dynsym); "" when none.
 * A stripped program keeps only .dynsym: a static allocator it does not export goes unseen. */
void hb_own_static(const char *path, char *out, size_t n);

/* Adds the names of add ('+'-separated) missing from list (size n), keeping list's order. */
void hb_own_merge(char *list, size_t n, const char *add);

#endif
