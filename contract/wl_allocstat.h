/* wl_allocstat.h - the allocstat record of the phase protocol (docs/DATA.md): one figure of the
 * allocator's own statistics at the end of a phase, written by the statistics library and read
 * by the runner into allocstats.csv.
 * Always holds: a record is WL_ALLOCSTAT_TAG and WL_ALLOCSTAT_FIELDS fields, in this order: phase,
 * api, stat, layer, value, reason; value is empty exactly when there is a reason; it is written
 * with one wl_record_to (one write(2), no malloc: the library runs inside the allocator's process). */
#ifndef WL_ALLOCSTAT_H
#define WL_ALLOCSTAT_H

#include <stdint.h>

#define WL_ALLOCSTAT_TAG "allocstat"
#define WL_ALLOCSTAT_FIELDS 6

/* Writes one allocstat record to fd: value when reason is NULL, an empty value and reason otherwise. */
void wl_allocstat(int fd, const char *phase, const char *api, const char *stat, const char *layer, uint64_t value,
                  const char *reason);

#endif
