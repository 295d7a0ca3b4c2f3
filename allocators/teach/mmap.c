/* mmap.c - the `mmap` teaching allocator: trim, plus every request of 128 KiB and up gets an
 * anonymous mapping of its own, unmapped by free() (lesson: big blocks never pin the heap and
 * go straight back to the kernel, at the price of a system call for each). */
#include "teach.h"

/* Trim a free top of 128 KiB down to 64 KiB; requests of 128 KiB and up are mapped. */
const struct teach_policy teach_policy = {.trim_at = 128 * TEACH_KIB, .trim_keep = 64 * TEACH_KIB, .mmap_at = 128 * TEACH_KIB};
