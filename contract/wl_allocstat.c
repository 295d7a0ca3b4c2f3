/* wl_allocstat.c - writes one allocstat record (see wl_allocstat.h).
 * Always holds: one wl_record_to per record; nothing here calls malloc. */
#include "wl_allocstat.h"
#include "wl_record.h"

#include <stdio.h>

void wl_allocstat(int fd, const char *phase, const char *api, const char *stat, const char *layer, uint64_t value,
                  const char *reason)
{
    char num[24] = "";
    if (!reason)
        snprintf(num, sizeof num, "%llu", (unsigned long long)value);
    wl_record_to(fd, WL_ALLOCSTAT_TAG "\t%s\t%s\t%s\t%s\t%s\t%s\n", phase, api, stat, layer, num, reason ? reason : "");
}
