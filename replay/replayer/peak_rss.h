/* peak_rss.h - the replayer's peak RSS over one pass, from the kernel's own high-water mark: reset
 * to the current RSS at a pass's start, read at its end, so that the heap figure's two terms (the
 * `load` RSS and the replay's peak) are one counter read at two moments (/proc/self/status, as
 * /proc/self/statm's RSS), not a process-wide maximum measured elsewhere.
 * Always holds: peak_rss_reset asks the kernel to set the mark to the RSS now (clear_refs 5, Linux
 * 4.0+) and says whether it did; peak_rss_kb is the mark (VmHWM: the most resident pages since the
 * last reset, or since the process started when none was accepted), 0 when unreadable. */
#ifndef HEAPBENCH_PEAK_RSS_H
#define HEAPBENCH_PEAK_RSS_H

#include <stdint.h>

/* 0 when the kernel reset the mark, -1 when it refused (the mark then covers the whole process). */
int peak_rss_reset(void);
/* The mark, in KiB (0: unreadable). */
uint64_t peak_rss_kb(void);

#endif
