/* wl_latmode.h - the latency sampling modes, off, sampled and all: their one table in C.
 * Always holds: wl_lat_mode_names[] follows enum wl_lat_mode entry for entry, and WL_LAT_MODE_WORDS
 * and WL_LAT_MODE_BAR list the same names in the same order (workloads/tests/latency.c checks it);
 * the runner's --latency, meta.json's latency.mode, the workloads' --latency= and HEAPBENCH_LATENCY
 * and the latency_clock record all take their words from here (docs/DATA.md). */
#ifndef WL_LATMODE_H
#define WL_LATMODE_H

enum wl_lat_mode { WL_LAT_OFF, WL_LAT_SAMPLED, WL_LAT_ALL, WL_LAT_MODES };

/* "off", "sampled", "all". */
extern const char *const wl_lat_mode_names[WL_LAT_MODES];

/* The names for messages and usage texts. */
#define WL_LAT_MODE_WORDS "off, sampled or all"
#define WL_LAT_MODE_BAR "off|sampled|all"

/* Mode sampled times about one call in this many of each kind, per thread. */
#define WL_LAT_EVERY_DEFAULT 64

/* The mode named word, or -1. */
int wl_lat_mode_parse(const char *word);

#endif
