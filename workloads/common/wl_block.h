/* wl_block.h - touching and checking allocated blocks, so RSS and page faults are real and corruption is caught.
 * Always holds: wl_fill writes a pattern derived from (tag, offset) into every 64-byte line of
 * the block's first 4 KiB, one word of every later 4 KiB page, and its last 8 bytes (every byte of
 * blocks under 8 bytes): every page is touched, cost stays small for big blocks; wl_check returns 1 only
 * when exactly that pattern is still there. Lives in its own translation unit so the compiler
 * cannot see through it and elide a malloc/free pair. */
#ifndef WL_BLOCK_H
#define WL_BLOCK_H

#include <stddef.h>
#include <stdint.h>

/* Writes the pattern for tag into the n bytes at p. */
void wl_fill(void *p, size_t n, uint64_t tag);

/* 1 when the n bytes at p still hold the pattern wl_fill(p, n, tag) wrote, 0 otherwise. */
int wl_check(const void *p, size_t n, uint64_t tag);

#endif
