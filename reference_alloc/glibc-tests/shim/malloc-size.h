/* malloc-size.h - the one fact of glibc's internal malloc-size.h that its tests use: the
 * alignment malloc guarantees on x86-64 (16 bytes).
 * Always holds: MALLOC_ALIGN_MASK == MALLOC_ALIGNMENT - 1. */
#ifndef HB_MALLOC_SIZE_H
#define HB_MALLOC_SIZE_H
#define MALLOC_ALIGNMENT 16
#define MALLOC_ALIGN_MASK (MALLOC_ALIGNMENT - 1)
#endif
