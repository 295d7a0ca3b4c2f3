/* freelist.c - the `freelist` teaching allocator: core.c's first-fit, address-ordered,
 * coalescing free list, and nothing else. Memory is reused but never given back: the
 * break only grows (lesson: RSS stays at the peak after everything is freed). */
#include "teach.h"

/* Neither trimming nor mappings of its own. */
const struct teach_policy teach_policy = {.trim_at = 0, .trim_keep = 0, .mmap_at = 0};
