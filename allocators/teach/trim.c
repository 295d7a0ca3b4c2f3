/* trim.c - the `trim` teaching allocator: freelist, plus free() lowers the break when the free
 * chunk at the top of the heap reaches 128 KiB, keeping 64 KiB of it (lesson: memory goes back
 * to the kernel, but only from the top; one live block up there pins everything below). */
#include "teach.h"

/* Trim a free top of 128 KiB down to 64 KiB; no mappings of its own. */
const struct teach_policy teach_policy = {.trim_at = 128 * TEACH_KIB, .trim_keep = 64 * TEACH_KIB, .mmap_at = 0};
