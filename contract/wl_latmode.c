/* wl_latmode.c - the names of the latency sampling modes (see wl_latmode.h).
 * Always holds: one entry per enum wl_lat_mode value, in its order. */
#include "wl_latmode.h"

#include <string.h>

const char *const wl_lat_mode_names[WL_LAT_MODES] = {"off", "sampled", "all"};

int wl_lat_mode_parse(const char *word)
{
    for (int m = 0; word && m < WL_LAT_MODES; m++)
        if (strcmp(word, wl_lat_mode_names[m]) == 0)
            return m;
    return -1;
}
