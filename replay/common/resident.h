/* resident.h - makes memory the replayer mapped for itself resident at once (one write per page), so
 * that its pages are counted in the `load` baseline and no event of a replay faults them in.
 * Always holds: writes one zero byte per page of the range and nothing else (the range is fresh:
 * zero already). */
#ifndef HEAPBENCH_RESIDENT_H
#define HEAPBENCH_RESIDENT_H

#include <stddef.h>
#include <unistd.h>

static inline void resident_now(void *p, size_t n)
{
    long page = sysconf(_SC_PAGESIZE);
    for (size_t i = 0; i < n; i += (size_t)(page > 0 ? page : 4096))
        ((volatile char *)p)[i] = 0;
}

#endif
