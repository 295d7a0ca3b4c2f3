/* cgalloc.h - the allocator's own instructions in a callgrind output file: the instructions
 * executed inside the malloc API (malloc, free, calloc, realloc, the aligned forms, their
 * allocators' aliases) and C++ operator new and delete, callees included (`run
 * --count-alloc-instructions`, runs.csv's metric_alloc_instructions).
 *
 * Always holds: a call is counted when an entry point is called from a function that is not one
 * (the outermost entry only: realloc calling free is counted once, within realloc); its cost is
 * the inclusive cost callgrind recorded on that call arc, so the sum equals callgrind's inclusive
 * cost of the outermost calls (callgrind_annotate --inclusive=yes). The program's total is the
 * sum of the file's totals lines (one per part), or of its summary lines without them.
 */
#ifndef HEAPBENCH_CGALLOC_H
#define HEAPBENCH_CGALLOC_H

#include <stdio.h>

/* Reads the callgrind output file f (event Ir first): *alloc gets the allocator's instructions,
 * *total the program's. Returns 0, or -1 when the file is not a callgrind output with a total. */
int hb_cgalloc_read(FILE *f, double *alloc, double *total);

/* 1 when name (a function of the file, without callgrind's 'N recursion suffix) is an entry point. */
int hb_cgalloc_entry(const char *name);

#endif
